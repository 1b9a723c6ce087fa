// Train This Plan (the advice panel): the run that trains an advised plan beside FP32 and the uniform
// mode the plan aims for. Plain C++ over the engine's headers: no Qt, no torch.
#pragma once

#include <optional>
#include <string>

#include "ampscope/engine/advice_run.h"
#include "ampscope/engine/run_config.h"

namespace ampscope::ui {

// `base` with `plan` as its plan lane and its modes extended, each added after the modes it has where
// missing: fp32, the target (the plan's uniform mode, where it is one; nullopt for "auto"), then the plan.
// The other fields are base's (the same initial weights and batches for every lane).
RunConfig planRunConfig(const RunConfig& base, const PlanConfig& plan, std::optional<PrecisionMode> target);

// Where the advised run's configuration comes from when it was read from a file: the engine's reading
// (advice_run.h), which tells a stream from a session as `advise` does.
using ampscope::engineRunConfigOfFile;
using ampscope::FileRunConfig;

}  // namespace ampscope::ui

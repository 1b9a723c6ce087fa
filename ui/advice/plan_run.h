// Train This Plan (the advice panel): the run that trains an advised plan beside FP32 and the uniform
// mode the plan aims for, and where the advised run's configuration comes from when it was read from a
// file. Plain C++ over the engine's headers: no Qt, no torch.
#pragma once

#include <optional>
#include <string>

#include "ampscope/engine/run_config.h"

namespace ampscope::ui {

// `base` with `plan` as its plan lane and its modes extended, each added after the modes it has where
// missing: fp32, the target (the plan's uniform mode, where it is one; nullopt for "auto"), then the plan.
// The other fields are base's (the same initial weights and batches for every lane).
RunConfig planRunConfig(const RunConfig& base, const PlanConfig& plan, std::optional<PrecisionMode> target);

// The configuration of the engine run a file holds: an engine stream's header (`ampscope-cli train
// --jsonl`), or a session's where it has engine records. Without one, why (the panel words it).
struct FileRunConfig {
  enum class Missing {
    None,
    Unreadable,        // `detail`: the engine's reason (a session that does not decode)
    NotEngineStream,   // a probe's stream, or an old stream without a header: no model
    FollowedRunsOnly,  // a session without a run of AmpScope's own: the advice is on a followed run
  };
  std::optional<RunConfig> config;
  Missing missing = Missing::None;
  std::string detail;
};
FileRunConfig engineRunConfigOfFile(const std::string& path);

}  // namespace ampscope::ui

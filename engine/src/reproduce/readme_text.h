// README.txt of the "Reproduce in PyTorch" folder: what the folder holds, how to run run.py, and how
// each precision mode runs there.
#pragma once

#include <cstdint>
#include <string>

#include "ampscope/engine/run_config.h"

namespace ampscope::reproduce {

// `withReference`: the folder holds ampscope_loss.csv, the losses AmpScope recorded.
std::string readmeText(const RunConfig& config, int64_t steps, bool withReference);

}  // namespace ampscope::reproduce

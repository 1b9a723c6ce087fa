// run.py's generated parts: the CONFIG dict literal and the PyTorch model, filled into the templates
// of resources/reproduce/ (see script_templates.h). reproduceScript() (reproduce_export.h) joins them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"

namespace ampscope::reproduce {

using ParameterShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// The CONFIG dict: the run's settings as run.py reads them, the FP16/BF16 modes to emulate, then the
// (name, file) lists of the parameters (engine order) and the batch tensors.
std::string configLiteral(const RunConfig& config, int64_t steps, const ParameterShapes& parameters,
                          const std::vector<std::string>& batchTensorNames,
                          const std::vector<PrecisionMode>& emulatedModes);

// A template's plan-only sections: the lines between a line "# >>> plan" and a line "# <<< plan"
// (comments at any indentation, so each template is valid Python with them). With the plan mode they
// are kept, without the two marker lines; without it they are left out, so a script that does not
// train the plan has the bytes it had before the plan mode existed. A marker out of place (nested,
// unopened, unclosed) throws std::logic_error: the templates are compiled in, so it is a build defect.
std::string planSections(std::string_view text, bool withPlan);

// The nn.Module matching the engine's model and build_model(), sized from the parameter shapes.
// Throws std::runtime_error when the shapes lack a parameter the model needs.
std::string modelCode(const RunConfig& config, const ParameterShapes& parameters);

}  // namespace ampscope::reproduce

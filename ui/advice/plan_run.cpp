#include "ui/advice/plan_run.h"

#include <algorithm>

namespace ampscope::ui {

namespace {

void addMode(std::vector<PrecisionMode>& modes, PrecisionMode mode) {
  if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
}

}  // namespace

RunConfig planRunConfig(const RunConfig& base, const PlanConfig& plan, std::optional<PrecisionMode> target) {
  RunConfig config = base;
  config.plan = plan;
  addMode(config.modes, PrecisionMode::FP32);
  if (target) addMode(config.modes, *target);
  addMode(config.modes, PrecisionMode::Plan);
  return config;
}

}  // namespace ampscope::ui

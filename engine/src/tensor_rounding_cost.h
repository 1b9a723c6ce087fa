// What rounding a tensor's float32 values into each format would cost (rounding_cost.h), as a record's
// `rounding-cost` list (telemetry.h FormatCostStats): the engine's FP32 lane with `rounding-cost` on.
// A tensor whose values arrive in parts (a tap's gradient that is a sum) keeps the exact sums and is
// converted once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ampscope/engine/rounding_cost.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope::detail {

using TensorRoundingCost = std::array<RoundingCost, kCostFormatCount>;

// Adds `more` into `into` (the counts, and the exact sums part by part: order-independent).
void addRoundingCost(TensorRoundingCost& into, const TensorRoundingCost& more);
// The record's list, in allCostFormats() order.
std::vector<FormatCostStats> formatCostStats(const TensorRoundingCost& cost);

}  // namespace ampscope::detail

#include "tensor_rounding_cost.h"

namespace ampscope::detail {

void addRoundingCost(TensorRoundingCost& into, const TensorRoundingCost& more) {
  for (int f = 0; f < kCostFormatCount; ++f) {
    RoundingCost& a = into[static_cast<size_t>(f)];
    const RoundingCost& b = more[static_cast<size_t>(f)];
    a.elements += b.elements;
    a.changed += b.changed;
    a.flushed += b.flushed;
    a.subnormal += b.subnormal;
    a.overflowed += b.overflowed;
    for (ExactSquareSum* sum : {&a.signal, &a.error}) {
      const ExactSquareSum& other = sum == &a.signal ? b.signal : b.error;
      for (size_t i = 0; i < other.parts().size(); ++i) {
        if (other.parts()[i] != 0) sum->addPart(static_cast<int>(i), other.parts()[i]);
      }
      if (other.infinite()) sum->addInfinite();
    }
  }
}

std::vector<FormatCostStats> formatCostStats(const TensorRoundingCost& cost) {
  std::vector<FormatCostStats> out;
  for (int f = 0; f < kCostFormatCount; ++f) {
    const RoundingCost& c = cost[static_cast<size_t>(f)];
    FormatCostStats s;
    s.format = costFormatKey(allCostFormats()[static_cast<size_t>(f)]);
    s.elements = c.elements;
    s.changed = c.changed;
    s.flushed = c.flushed;
    s.subnormal = c.subnormal;
    s.overflowed = c.overflowed;
    s.sqnrDb = c.sqnrDb();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ampscope::detail

#include "fp8/scaling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampscope::detail::fp8 {

float perTensorScale(float amax, float formatMax, int64_t margin, float previous) {
  if (!(amax > 0.0f) || !std::isfinite(amax)) return previous;
  float scale = (formatMax / amax) / std::ldexp(1.0f, static_cast<int>(margin));
  if (std::isinf(scale)) scale = std::numeric_limits<float>::max();
  return scale;
}

void AmaxHistory::push(float amax) {
  values_.push_back(amax);
  while (static_cast<int64_t>(values_.size()) > length_) values_.pop_front();
}

float AmaxHistory::max() const {
  float m = 0.0f;
  for (const float v : values_) {
    if (std::isnan(v)) return v;
    m = std::max(m, v);
  }
  return m;
}

int mxSharedExponent(float blockAmax, int elementMaxExp) {
  if (blockAmax == 0.0f) return -127;
  const int x = std::ilogb(blockAmax) - elementMaxExp;
  return std::clamp(x, -127, 127);
}

}  // namespace ampscope::detail::fp8

#include "sum_of_squares.h"

#include <algorithm>
#include <cstring>

#include "kernel_isa.h"

namespace ampscope::detail {
namespace {

// What a pass does with each value besides squaring it: nothing, copy it, or unscale it in place
// (src == dst; the square is of the product) or only check it (invScale 1), the last two keeping the
// largest exponent field of the inputs.
enum class Pass { Sum, Copy, Unscale, Check };

template <Pass kPass>
AMPSCOPE_ALWAYS_INLINE double squaresOf(const float* src, float* dst, int64_t n, float factor = 1.0f,
                                        uint32_t* inputExponent = nullptr) {
  constexpr int64_t kLanes = 64;  // eight chains of 8 doubles: the FMA latency overlaps
  double lanes[kLanes] = {};
  // Per lane too: one running maximum made GCC reduce it across the vector every 64 values (9.9 us for
  // TinyMLP's 71,178 gradients, against 4.05 per lane and 5.3 for the unscale and the sum apart).
  uint32_t exponents[kLanes] = {};
  const auto take = [&](int64_t k, uint32_t& exponent) {
    float v = src[k];
    if constexpr (kPass == Pass::Unscale || kPass == Pass::Check) {
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      exponent = std::max(exponent, bits & 0x7F800000u);
    }
    if constexpr (kPass == Pass::Unscale) v *= factor;
    if constexpr (kPass == Pass::Copy || kPass == Pass::Unscale) dst[k] = v;
    return static_cast<double>(v) * static_cast<double>(v);
  };
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += take(i + j, exponents[j]);
  }
  for (; i < n; ++i) lanes[0] += take(i, exponents[0]);
  if (inputExponent != nullptr) *inputExponent = *std::max_element(exponents, exponents + kLanes);
  double total = 0;
  for (double lane : lanes) total += lane;
  return total;
}

AMPSCOPE_ALWAYS_INLINE double copyWithSumOfSquaresBody(const float* src, float* dst, int64_t n) {
  return squaresOf<Pass::Copy>(src, dst, n);
}
AMPSCOPE_ALWAYS_INLINE double sumOfSquaresBody(const float* data, int64_t n) {
  return squaresOf<Pass::Sum>(data, nullptr, n);
}
AMPSCOPE_ALWAYS_INLINE double unscaleWithSumOfSquaresBody(float* data, int64_t n, float invScale,
                                                         uint32_t* inputExponent) {
  return invScale == 1.0f ? squaresOf<Pass::Check>(data, nullptr, n, 1.0f, inputExponent)
                          : squaresOf<Pass::Unscale>(data, data, n, invScale, inputExponent);
}

}  // namespace

AMPSCOPE_ISA_DISPATCH(double, copyWithSumOfSquares, (const float* src, float* dst, int64_t n), (src, dst, n))
AMPSCOPE_ISA_DISPATCH(double, sumOfSquares, (const float* data, int64_t n), (data, n))
AMPSCOPE_ISA_DISPATCH(double, unscaleWithSumOfSquares,
                      (float* data, int64_t n, float invScale, uint32_t* inputExponent),
                      (data, n, invScale, inputExponent))

}  // namespace ampscope::detail

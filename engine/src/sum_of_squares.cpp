#include "sum_of_squares.h"

#include "kernel_isa.h"

namespace ampscope::detail {
namespace {

template <bool kCopy>
AMPSCOPE_ALWAYS_INLINE double squaresOf(const float* src, float* dst, int64_t n) {
  constexpr int64_t kLanes = 64;  // eight chains of 8 doubles: the FMA latency overlaps
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const float v = src[i + j];
      if constexpr (kCopy) dst[i + j] = v;
      lanes[j] += static_cast<double>(v) * static_cast<double>(v);
    }
  }
  for (; i < n; ++i) {
    const float v = src[i];
    if constexpr (kCopy) dst[i] = v;
    lanes[0] += static_cast<double>(v) * static_cast<double>(v);
  }
  double total = 0;
  for (double lane : lanes) total += lane;
  return total;
}

AMPSCOPE_ALWAYS_INLINE double copyWithSumOfSquaresBody(const float* src, float* dst, int64_t n) {
  return squaresOf<true>(src, dst, n);
}
AMPSCOPE_ALWAYS_INLINE double sumOfSquaresBody(const float* data, int64_t n) {
  return squaresOf<false>(data, nullptr, n);
}

}  // namespace

AMPSCOPE_ISA_DISPATCH(double, copyWithSumOfSquares, (const float* src, float* dst, int64_t n), (src, dst, n))
AMPSCOPE_ISA_DISPATCH(double, sumOfSquares, (const float* data, int64_t n), (data, n))

}  // namespace ampscope::detail

#include "exponent_histogram_builder.h"

#include <cstring>

namespace ampscope::detail {

void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  const float minNormal = lowFormatMinNormal(target);
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    const uint32_t exponentField = magnitude >> 23;
    if (exponentField == 0xFF) {
      if (magnitude & 0x7FFFFFu) {
        ++histogram.nan;
      } else if (bits >> 31) {
        ++histogram.negInf;
      } else {
        ++histogram.posInf;
      }
      continue;
    }
    if (magnitude == 0) {
      ++histogram.zero;
      continue;
    }
    int exponent;
    if (exponentField == 0) {
      // float32 subnormal: value = mantissa * 2^-149.
      exponent = -149 + (31 - __builtin_clz(magnitude));
    } else {
      exponent = static_cast<int>(exponentField) - 127;
    }
    ++histogram.counts[static_cast<size_t>(exponent - ExponentHistogram::kMinExponent)];
    if (std::fabs(value) < minNormal) {
      const float rounded = roundScalar(value, target);
      if (rounded == 0.0f) {
        ++histogram.targetUnderflow;
      } else if (std::fabs(rounded) < minNormal) {
        ++histogram.targetSubnormal;
      }
    }
  }
}

void accumulateHistogram(const torch::Tensor& tensor, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  at::NoGradGuard noGrad;
  torch::Tensor data = tensor;
  if (data.scalar_type() != torch::kFloat) data = data.to(torch::kFloat);
  data = data.contiguous();
  accumulateHistogram(data.data_ptr<float>(), data.numel(), multiplier, target, histogram);
}

}  // namespace ampscope::detail

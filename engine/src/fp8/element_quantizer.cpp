#include "fp8/element_quantizer.h"

#include <cstring>
#include <limits>

#include "fp8/element_kernel.h"
#include "kernel_isa.h"

namespace ampscope::detail::fp8 {

using namespace kernel;

const ElementSpec& elementSpec(QuantFormat format) {
  // OCP 8-bit FP spec (E4M3: max 1.75 * 2^8 = 448, E5M2: max 1.75 * 2^15 = 57344) and the OCP MX spec's
  // FP4 E2M1 (max 1.5 * 2^2 = 6, subnormal 0.5).
  static const ElementSpec kE4M3{3, -6, 448.0f, 8, 0x1p-9f};
  static const ElementSpec kE5M2{2, -14, 57344.0f, 15, 0x1p-16f};
  static const ElementSpec kE2M1{1, 0, 6.0f, 2, 0.5f};
  switch (format) {
    case QuantFormat::E4M3: return kE4M3;
    case QuantFormat::E5M2: return kE5M2;
    case QuantFormat::E2M1: return kE2M1;
  }
  return kE4M3;
}

namespace {

AMPSCOPE_ALWAYS_INLINE void quantizeBody(const float* in, float* out, int64_t n, QuantFormat format,
                                     float scale, float invScale, QuantCounts* counts) {
  const Kernel k = kernelFor(elementSpec(format));
  if (counts == nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = quantizeOne(in[i], scale, invScale, k);
    return;
  }
  int64_t saturated = 0;
  int64_t flushed = 0;
  for (int64_t i = 0; i < n; ++i) out[i] = quantizeOneCounted(in[i], scale, invScale, k, saturated, flushed);
  counts->saturated += saturated;
  counts->flushed += flushed;
}

AMPSCOPE_ALWAYS_INLINE float absMaxBody(const float* in, int64_t n) {
  // Positive floats order like their bit patterns, NaN patterns above inf; magnitudes are below 2^31,
  // so a signed maximum orders them (vectorised without unsigned compares).
  int32_t maxBits = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto a = static_cast<int32_t>(bitsOf(in[i]) & 0x7FFFFFFFu);
    maxBits = a > maxBits ? a : maxBits;
  }
  return maxBits > 0x7F800000 ? std::numeric_limits<float>::quiet_NaN() : floatOf(static_cast<uint32_t>(maxBits));
}

}  // namespace

AMPSCOPE_ISA_DISPATCH(void, quantize,
                  (const float* in, float* out, int64_t n, QuantFormat format, float scale, float invScale,
                   QuantCounts* counts),
                  (in, out, n, format, scale, invScale, counts))

float quantizeValue(float value, QuantFormat format) {
  float out = 0;
  quantize(&value, &out, 1, format, 1.0f, 1.0f, nullptr);
  return out;
}

AMPSCOPE_ISA_DISPATCH(float, absMax, (const float* in, int64_t n), (in, n))

}  // namespace ampscope::detail::fp8

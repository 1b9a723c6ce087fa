#include "fp8/element_quantizer.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace ampscope::detail::fp8 {
namespace {

inline uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
inline float floatOf(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Constants of one format for the inner loop.
struct Kernel {
  uint32_t shift;          // 23 - mantissa bits
  uint32_t halfMinusOne;   // (1 << (shift - 1)) - 1
  uint32_t keepMask;       // clears the dropped bits
  uint32_t minNormalBits;  // float32 pattern of 2^minNormalExp
  float magic;             // 2^(minNormalExp - mantissaBits + 23)
  float maxValue;
};

Kernel kernelFor(const ElementSpec& spec) {
  Kernel k;
  k.shift = static_cast<uint32_t>(23 - spec.mantissaBits);
  k.halfMinusOne = (1u << (k.shift - 1)) - 1u;
  k.keepMask = ~((1u << k.shift) - 1u);
  k.minNormalBits = static_cast<uint32_t>(spec.minNormalExp + 127) << 23;
  k.magic = std::ldexp(1.0f, spec.minNormalExp - spec.mantissaBits + 23);
  k.maxValue = spec.maxValue;
  return k;
}

// The rounded magnitude of |v| given as its bit pattern `a` (sign cleared).
inline float roundMagnitude(uint32_t a, const Kernel& k) {
  const uint32_t normal = (a + k.halfMinusOne + ((a >> k.shift) & 1u)) & k.keepMask;
  const float fa = floatOf(a);
  // volatile-free: without -ffast-math the compiler keeps (fa + magic) - magic as written.
  const float sub = (fa + k.magic) - k.magic;
  float r = a < k.minNormalBits ? sub : floatOf(normal);
  r = fa > k.maxValue ? k.maxValue : r;
  return a > 0x7F800000u ? fa : r;  // NaN stays NaN
}

}  // namespace

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

void quantize(const float* in, float* out, int64_t n, QuantFormat format, float scale, float invScale,
              QuantCounts* counts) {
  const Kernel k = kernelFor(elementSpec(format));
  if (counts == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t b = bitsOf(in[i] * scale);
      const uint32_t sign = b & 0x80000000u;
      const float r = roundMagnitude(b ^ sign, k);
      out[i] = floatOf(bitsOf(r) | sign) * invScale;
    }
    return;
  }
  int64_t saturated = 0;
  int64_t flushed = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    const uint32_t b = bitsOf(x * scale);
    const uint32_t sign = b & 0x80000000u;
    const uint32_t a = b ^ sign;
    const float r = roundMagnitude(a, k);
    saturated += (a <= 0x7F800000u && floatOf(a) > k.maxValue) ? 1 : 0;
    flushed += (x != 0.0f && r == 0.0f) ? 1 : 0;
    out[i] = floatOf(bitsOf(r) | sign) * invScale;
  }
  counts->saturated += saturated;
  counts->flushed += flushed;
}

float quantizeValue(float value, QuantFormat format) {
  float out = 0;
  quantize(&value, &out, 1, format, 1.0f, 1.0f, nullptr);
  return out;
}

float absMax(const float* in, int64_t n) {
  uint32_t maxBits = 0;  // positive floats order like their bit patterns; NaN patterns are above inf
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t a = bitsOf(in[i]) & 0x7FFFFFFFu;
    maxBits = a > maxBits ? a : maxBits;
  }
  return maxBits > 0x7F800000u ? std::numeric_limits<float>::quiet_NaN() : floatOf(maxBits);
}

}  // namespace ampscope::detail::fp8

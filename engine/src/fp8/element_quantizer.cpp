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
  uint32_t maxBits;        // float32 pattern of the largest finite value
};

Kernel kernelFor(const ElementSpec& spec) {
  Kernel k;
  k.shift = static_cast<uint32_t>(23 - spec.mantissaBits);
  k.halfMinusOne = (1u << (k.shift - 1)) - 1u;
  k.keepMask = ~((1u << k.shift) - 1u);
  k.minNormalBits = static_cast<uint32_t>(spec.minNormalExp + 127) << 23;
  k.magic = std::ldexp(1.0f, spec.minNormalExp - spec.mantissaBits + 23);
  k.maxBits = bitsOf(spec.maxValue);
  return k;
}

// All-ones when the condition holds: selections are masks, so the loops have no branches to vectorise
// around (positive floats, NaN patterns above inf, order like their bit patterns).
inline uint32_t maskIf(bool condition) { return 0u - static_cast<uint32_t>(condition); }

// The bit pattern of the rounded magnitude of the float32 magnitude with bit pattern `a`.
inline uint32_t roundMagnitude(uint32_t a, const Kernel& k) {
  const uint32_t normal = (a + k.halfMinusOne + ((a >> k.shift) & 1u)) & k.keepMask;
  // Without -ffast-math the compiler keeps (fa + magic) - magic as written.
  const uint32_t sub = bitsOf((floatOf(a) + k.magic) - k.magic);
  const uint32_t isSub = maskIf(a < k.minNormalBits);
  const uint32_t over = maskIf(a > k.maxBits);        // beyond max, inf and NaN
  const uint32_t isNaN = maskIf(a > 0x7F800000u);
  uint32_t r = (sub & isSub) | (normal & ~isSub);
  r = (r & ~over) | (k.maxBits & over);
  return (r & ~isNaN) | (a & isNaN);
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
      out[i] = floatOf(roundMagnitude(b ^ sign, k) | sign) * invScale;
    }
    return;
  }
  int64_t saturated = 0;
  int64_t flushed = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t xa = bitsOf(in[i]) & 0x7FFFFFFFu;
    const uint32_t b = bitsOf(in[i] * scale);
    const uint32_t sign = b & 0x80000000u;
    const uint32_t a = b ^ sign;
    const uint32_t r = roundMagnitude(a, k);
    saturated += static_cast<int64_t>((a > k.maxBits) & (a <= 0x7F800000u));
    flushed += static_cast<int64_t>((xa != 0u) & (r == 0u));
    out[i] = floatOf(r | sign) * invScale;
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

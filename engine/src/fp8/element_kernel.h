// The per-element rounding of element_quantizer.h as inline functions, so that the block quantisers
// (block_quantizer.cpp) run it inside their own loops, with the format's constants computed once per
// tensor instead of once per block. element_quantizer.cpp's quantize() is built from the same code, so
// both give the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "fp8/element_quantizer.h"

namespace ampscope::detail::fp8::kernel {

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

inline Kernel kernelFor(const ElementSpec& spec) {
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

// a < b for magnitudes' bit patterns (both below 2^31): a signed compare, which SSE2 and AVX2 have as
// one instruction (their unsigned compares take two or three).
inline bool below(uint32_t a, uint32_t b) { return static_cast<int32_t>(a) < static_cast<int32_t>(b); }

// The bit pattern of the rounded magnitude of the float32 magnitude with bit pattern `a` (below 2^31).
inline uint32_t roundMagnitude(uint32_t a, const Kernel& k) {
  const uint32_t normal = (a + k.halfMinusOne + ((a >> k.shift) & 1u)) & k.keepMask;
  // Without -ffast-math the compiler keeps (fa + magic) - magic as written.
  const uint32_t sub = bitsOf((floatOf(a) + k.magic) - k.magic);
  const uint32_t isSub = maskIf(below(a, k.minNormalBits));
  const uint32_t over = maskIf(below(k.maxBits, a));   // beyond max, inf and NaN
  const uint32_t isNaN = maskIf(below(0x7F800000u, a));
  uint32_t r = (sub & isSub) | (normal & ~isSub);
  r = (r & ~over) | (k.maxBits & over);
  return (r & ~isNaN) | (a & isNaN);
}

// round(v * scale) * invScale, the value quantize() computes for one element.
inline float quantizeOne(float v, float scale, float invScale, const Kernel& k) {
  const uint32_t b = bitsOf(v * scale);
  const uint32_t sign = b & 0x80000000u;
  return floatOf(roundMagnitude(b ^ sign, k) | sign) * invScale;
}

// The same, counting a saturation (|v * scale| beyond max, infinities included) and a flush (v non-zero,
// the rounded value zero) into the two counters.
inline float quantizeOneCounted(float v, float scale, float invScale, const Kernel& k, int64_t& saturated,
                                int64_t& flushed) {
  const uint32_t xa = bitsOf(v) & 0x7FFFFFFFu;
  const uint32_t b = bitsOf(v * scale);
  const uint32_t sign = b & 0x80000000u;
  const uint32_t a = b ^ sign;
  const uint32_t r = roundMagnitude(a, k);
  saturated += static_cast<int64_t>(below(k.maxBits, a) & !below(0x7F800000u, a));
  flushed += static_cast<int64_t>((xa != 0u) & (r == 0u));
  return floatOf(r | sign) * invScale;
}

// 2^e as a float32 for e in [-149, 127], from its bit pattern (exact; what std::ldexp(1.0f, e) gives).
inline float pow2(int e) {
  return e >= -126 ? floatOf(static_cast<uint32_t>(e + 127) << 23) : floatOf(1u << (e + 149));
}

}  // namespace ampscope::detail::fp8::kernel

#include "fused_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernel_isa.h"

// Built with -ffp-contract=off (the ISO mode's default, and set for this file): a*b + c stays two
// roundings unless written as std::fma. The x86-64-v3 and v4 builds give std::fma an instruction; the
// baseline build calls fmaf, slower but the same bits.

namespace ampscope::detail {
namespace {

// The rounded passes' stage arrays: 16 KiB, in L1. Each stage rounds a block by one roundToFormat call:
// blocks of 256 made 280 calls a stage for TinyMLP, and the counted stage's fixed costs alone
// (RoundingCounts::add, an empty tail's count, the threshold lookup) showed as 3 us of an instrumented
// fp16-pure step in perf.
constexpr int64_t kBlock = 1024;

template <bool kFma>
inline float multiplyAdd(float a, float b, float c) {
  if constexpr (kFma) {
    return std::fma(a, b, c);
  } else {
    return a * b + c;
  }
}

inline uint32_t exponentBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits & 0x7f800000u;
}

// Inf and NaN have an all-ones exponent; a max over the masked bits has no branch.
inline bool allFinite(const float* data, int64_t n) {
  uint32_t maxExponent = 0;
  for (int64_t i = 0; i < n; ++i) maxExponent = std::max(maxExponent, exponentBits(data[i]));
  return maxExponent != 0x7f800000u;
}

template <bool kFma>
__attribute__((always_inline)) inline bool adamwLoop(float* __restrict p, const float* __restrict g, float* __restrict m,
                      float* __restrict v, int64_t n, const AdamWCoefficients& c) {
  const bool decay = c.weightDecay;
  const float decayFactor = c.decay, b1 = c.beta1, c1 = c.oneMinusBeta1, b2 = c.beta2,
              c2 = c.oneMinusBeta2, bc2 = c.biasCorrection2Sqrt, eps = c.eps, step = c.negativeStepSize;
  uint32_t maxExponent = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float pi = decay ? p[i] * decayFactor : p[i];
    const float mi = multiplyAdd<kFma>(gi, c1, m[i] * b1);   // exp_avg.mul_(b1).add_(grad, 1 - b1)
    const float vi = multiplyAdd<kFma>(c2 * gi, gi, v[i] * b2);  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1 - b2)
    const float denom = std::sqrt(vi) / bc2 + eps;
    const float updated = pi + (step * mi) / denom;           // addcdiv_: self + value * t1 / t2
    m[i] = mi;
    v[i] = vi;
    p[i] = updated;
    maxExponent = std::max(maxExponent, exponentBits(updated));
  }
  return maxExponent != 0x7f800000u;
}

template <bool kFma>
__attribute__((always_inline)) inline bool adamwRoundedLoop(float* p, const float* g, float* m, float* v, int64_t n,
                             const AdamWCoefficients& c, LowFormat format, RoundingCounts* counts) {
  float grad[kBlock], scratch[kBlock], denom[kBlock], param[kBlock];
  bool finite = true;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    float* ms = m + start;
    float* vs = v + start;
    roundToFormat(g + start, grad, len, format, nullptr);
    if (c.weightDecay) {
      for (int64_t i = 0; i < len; ++i) param[i] = p[start + i] * c.decay;
      roundToFormat(param, param, len, format, nullptr);
    } else {
      std::memcpy(param, p + start, static_cast<size_t>(len) * sizeof(float));
    }
    for (int64_t i = 0; i < len; ++i) scratch[i] = ms[i] * c.beta1;
    roundToFormat(scratch, scratch, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) ms[i] = multiplyAdd<kFma>(grad[i], c.oneMinusBeta1, scratch[i]);
    roundToFormat(ms, ms, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) scratch[i] = vs[i] * c.beta2;
    roundToFormat(scratch, scratch, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) vs[i] = multiplyAdd<kFma>(c.oneMinusBeta2 * grad[i], grad[i], scratch[i]);
    roundToFormat(vs, vs, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) denom[i] = std::sqrt(vs[i]);
    roundToFormat(denom, denom, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) denom[i] = denom[i] / c.biasCorrection2Sqrt;
    roundToFormat(denom, denom, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) denom[i] = denom[i] + c.eps;
    roundToFormat(denom, denom, len, format, nullptr);
    for (int64_t i = 0; i < len; ++i) param[i] = param[i] + (c.negativeStepSize * ms[i]) / denom[i];
    roundToFormat(param, p + start, len, format, counts);
    finite &= allFinite(p + start, len);
  }
  return finite;
}

template <bool kFma>
__attribute__((always_inline)) inline bool sgdLoop(float* __restrict p, const float* __restrict g, float* __restrict buf, int64_t n,
                    const SgdCoefficients& c) {
  uint32_t maxExponent = 0;
  for (int64_t i = 0; i < n; ++i) {
    float d = c.weightDecay ? multiplyAdd<kFma>(p[i], c.decay, g[i]) : g[i];  // grad.add(p, wd)
    if (c.momentum) {
      // buf.mul_(momentum).add_(d): the FMA with alpha 1 is the plain sum.
      d = c.firstStep ? d : buf[i] * c.momentumFactor + d;
      buf[i] = d;
    }
    const float updated = multiplyAdd<kFma>(d, c.negativeLr, p[i]);  // p.add_(d, -lr)
    p[i] = updated;
    maxExponent = std::max(maxExponent, exponentBits(updated));
  }
  return maxExponent != 0x7f800000u;
}

template <bool kFma>
__attribute__((always_inline)) inline bool sgdRoundedLoop(float* p, const float* g, float* buf, int64_t n, const SgdCoefficients& c,
                           LowFormat format, RoundingCounts* counts) {
  float direction[kBlock], param[kBlock];
  bool finite = true;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    roundToFormat(g + start, direction, len, format, nullptr);
    if (c.weightDecay) {
      for (int64_t i = 0; i < len; ++i) direction[i] = multiplyAdd<kFma>(p[start + i], c.decay, direction[i]);
      roundToFormat(direction, direction, len, format, nullptr);
    }
    if (c.momentum) {
      float* b = buf + start;
      if (c.firstStep) {
        std::memcpy(b, direction, static_cast<size_t>(len) * sizeof(float));
      } else {
        for (int64_t i = 0; i < len; ++i) b[i] = b[i] * c.momentumFactor;
        roundToFormat(b, b, len, format, nullptr);
        for (int64_t i = 0; i < len; ++i) b[i] = b[i] + direction[i];
        roundToFormat(b, b, len, format, nullptr);
        std::memcpy(direction, b, static_cast<size_t>(len) * sizeof(float));
      }
    }
    for (int64_t i = 0; i < len; ++i) param[i] = multiplyAdd<kFma>(direction[i], c.negativeLr, p[start + i]);
    roundToFormat(param, p + start, len, format, counts);
    finite &= allFinite(p + start, len);
  }
  return finite;
}

// Each pass compiled once per instruction set and chosen by kernelIsa() (kernel_isa.h), so the tests
// run the AVX2 and baseline builds on a wider CPU too; every choice does the same float operations.
AMPSCOPE_ALWAYS_INLINE bool adamwFmaBody(float* p, const float* g, float* m, float* v, int64_t n,
                                         const AdamWCoefficients& c) {
  return adamwLoop<true>(p, g, m, v, n, c);
}
AMPSCOPE_ALWAYS_INLINE bool adamwSeparateBody(float* p, const float* g, float* m, float* v, int64_t n,
                                              const AdamWCoefficients& c) {
  return adamwLoop<false>(p, g, m, v, n, c);
}
AMPSCOPE_ALWAYS_INLINE bool sgdFmaBody(float* p, const float* g, float* buf, int64_t n, const SgdCoefficients& c) {
  return sgdLoop<true>(p, g, buf, n, c);
}
AMPSCOPE_ALWAYS_INLINE bool sgdSeparateBody(float* p, const float* g, float* buf, int64_t n,
                                            const SgdCoefficients& c) {
  return sgdLoop<false>(p, g, buf, n, c);
}
AMPSCOPE_ALWAYS_INLINE bool adamwRoundedFmaBody(float* p, const float* g, float* m, float* v, int64_t n,
                                                const AdamWCoefficients& c, LowFormat f, RoundingCounts* counts) {
  return adamwRoundedLoop<true>(p, g, m, v, n, c, f, counts);
}
AMPSCOPE_ALWAYS_INLINE bool adamwRoundedSeparateBody(float* p, const float* g, float* m, float* v, int64_t n,
                                                     const AdamWCoefficients& c, LowFormat f,
                                                     RoundingCounts* counts) {
  return adamwRoundedLoop<false>(p, g, m, v, n, c, f, counts);
}
AMPSCOPE_ALWAYS_INLINE bool sgdRoundedFmaBody(float* p, const float* g, float* buf, int64_t n,
                                              const SgdCoefficients& c, LowFormat f, RoundingCounts* counts) {
  return sgdRoundedLoop<true>(p, g, buf, n, c, f, counts);
}
AMPSCOPE_ALWAYS_INLINE bool sgdRoundedSeparateBody(float* p, const float* g, float* buf, int64_t n,
                                                   const SgdCoefficients& c, LowFormat f, RoundingCounts* counts) {
  return sgdRoundedLoop<false>(p, g, buf, n, c, f, counts);
}

#define AMPSCOPE_ADAMW_PARAMS (float* p, const float* g, float* m, float* v, int64_t n, const AdamWCoefficients& c)
#define AMPSCOPE_SGD_PARAMS (float* p, const float* g, float* buf, int64_t n, const SgdCoefficients& c)
#define AMPSCOPE_ROUNDED_ADAMW_PARAMS                                                                   \
  (float* p, const float* g, float* m, float* v, int64_t n, const AdamWCoefficients& c, LowFormat f, \
   RoundingCounts* counts)
#define AMPSCOPE_ROUNDED_SGD_PARAMS \
  (float* p, const float* g, float* buf, int64_t n, const SgdCoefficients& c, LowFormat f, RoundingCounts* counts)
AMPSCOPE_ISA_DISPATCH(bool, adamwFma, AMPSCOPE_ADAMW_PARAMS, (p, g, m, v, n, c))
AMPSCOPE_ISA_DISPATCH(bool, adamwSeparate, AMPSCOPE_ADAMW_PARAMS, (p, g, m, v, n, c))
AMPSCOPE_ISA_DISPATCH(bool, sgdFma, AMPSCOPE_SGD_PARAMS, (p, g, buf, n, c))
AMPSCOPE_ISA_DISPATCH(bool, sgdSeparate, AMPSCOPE_SGD_PARAMS, (p, g, buf, n, c))
AMPSCOPE_ISA_DISPATCH(bool, adamwRoundedFma, AMPSCOPE_ROUNDED_ADAMW_PARAMS, (p, g, m, v, n, c, f, counts))
AMPSCOPE_ISA_DISPATCH(bool, adamwRoundedSeparate, AMPSCOPE_ROUNDED_ADAMW_PARAMS, (p, g, m, v, n, c, f, counts))
AMPSCOPE_ISA_DISPATCH(bool, sgdRoundedFma, AMPSCOPE_ROUNDED_SGD_PARAMS, (p, g, buf, n, c, f, counts))
AMPSCOPE_ISA_DISPATCH(bool, sgdRoundedSeparate, AMPSCOPE_ROUNDED_SGD_PARAMS, (p, g, buf, n, c, f, counts))
#undef AMPSCOPE_ADAMW_PARAMS
#undef AMPSCOPE_SGD_PARAMS
#undef AMPSCOPE_ROUNDED_ADAMW_PARAMS
#undef AMPSCOPE_ROUNDED_SGD_PARAMS

}  // namespace

bool adamwPass(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n,
               const AdamWCoefficients& c, bool fma) {
  return fma ? adamwFma(param, grad, expAvg, expAvgSq, n, c) : adamwSeparate(param, grad, expAvg, expAvgSq, n, c);
}

bool adamwRoundedPass(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n,
                      const AdamWCoefficients& c, bool fma, LowFormat format, RoundingCounts* counts) {
  return fma ? adamwRoundedFma(param, grad, expAvg, expAvgSq, n, c, format, counts)
             : adamwRoundedSeparate(param, grad, expAvg, expAvgSq, n, c, format, counts);
}

bool sgdPass(float* param, const float* grad, float* buffer, int64_t n, const SgdCoefficients& c, bool fma) {
  return fma ? sgdFma(param, grad, buffer, n, c) : sgdSeparate(param, grad, buffer, n, c);
}

bool sgdRoundedPass(float* param, const float* grad, float* buffer, int64_t n, const SgdCoefficients& c,
                    bool fma, LowFormat format, RoundingCounts* counts) {
  return fma ? sgdRoundedFma(param, grad, buffer, n, c, format, counts)
             : sgdRoundedSeparate(param, grad, buffer, n, c, format, counts);
}

}  // namespace ampscope::detail

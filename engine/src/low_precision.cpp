#include "low_precision.h"

#include <c10/util/Half.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "exponent_histogram_builder.h"
#include "vector_clones.h"

namespace ampscope::detail {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float roundBf16(float value) {
  const uint32_t bits = bitsOf(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return floatOf(bits | 0x00400000u);  // NaN stays (quiet) NaN
  const uint32_t bias = 0x7FFFu + ((bits >> 16) & 1u);
  return floatOf((bits + bias) & 0xFFFF0000u);
}

float roundFp16Scalar(float value) { return static_cast<float>(c10::Half(value)); }

bool haveF16c() {
  static const bool kHave = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return kHave;
}

__attribute__((target("avx,f16c"))) void roundFp16F16c(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = roundFp16Scalar(in[i]);
}

bool haveAvx512() {
  static const bool kHave = __builtin_cpu_supports("avx512f");
  return kHave;
}

// The same VCVTPS2PH/VCVTPH2PS conversions, 16 lanes at a time.
__attribute__((target("avx512f,avx,f16c"))) void roundFp16Avx512(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    const __m256i h = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
  roundFp16F16c(in + i, out + i, n - i);
}

// Integer arithmetic only, branch-free: 16 lanes in the AVX-512 clone (the SSE2 build took 4).
AMPSCOPE_VECTOR_CLONES void roundBf16Block(const float* in, float* out, int64_t n) {  // in == out too
  for (int64_t i = 0; i < n; ++i) out[i] = roundBf16(in[i]);
}

// The smallest |x| - 1 (a zero wraps to the top) and the largest |x| of a block, as bits: where both lie
// between a format's thresholds, rounding neither flushes, nor makes a subnormal, an overflow or a NaN.
struct BitsRange {
  uint32_t lowestLessOne = UINT32_MAX, highest = 0;
  void add(float value) {
    const uint32_t b = bitsOf(value) & 0x7FFFFFFFu;
    lowestLessOne = std::min(lowestLessOne, b - 1u);
    highest = std::max(highest, b);
  }
  bool clean(const RangeThresholds& t) const {
    return lowestLessOne >= t.subnormalBelow - 1 && highest < t.overflowFrom;
  }
};

// BitsRange over 16 lanes: each lane's magnitude bits and their smallest - 1 and largest.
struct LaneRange {
  __m512i lowestLessOne, highest;
  __attribute__((target("avx512f"))) LaneRange()
      : lowestLessOne(_mm512_set1_epi32(-1)), highest(_mm512_setzero_si512()) {}
  // x's magnitude bits (taken into the range when kTake), and those bits less one (a zero wraps to the top).
  template <bool kTake>
  __attribute__((target("avx512f"))) __m512i take(__m512 x, __m512i& lessOne) {
    const __m512i b = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF));
    lessOne = _mm512_sub_epi32(b, _mm512_set1_epi32(1));
    if constexpr (kTake) {
      lowestLessOne = _mm512_min_epu32(lowestLessOne, lessOne);
      highest = _mm512_max_epu32(highest, b);
    }
    return b;
  }
  __attribute__((target("avx512f"))) BitsRange reduce() const {
    alignas(64) uint32_t lowLanes[16], highLanes[16];
    _mm512_store_si512(lowLanes, lowestLessOne);
    _mm512_store_si512(highLanes, highest);
    return {*std::min_element(lowLanes, lowLanes + 16), *std::max_element(highLanes, highLanes + 16)};
  }
};

// roundFp16Avx512 and roundBf16Block that also take the range of the input, in the same pass (in != out).
__attribute__((target("avx512f,avx,f16c"))) BitsRange roundFp16Avx512WithRange(const float* in, float* out,
                                                                                int64_t n) {
  LaneRange lanes;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    __m512i lessOne;
    lanes.take<true>(x, lessOne);
    const __m256i h = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
  BitsRange range = lanes.reduce();
  for (int64_t j = i; j < n; ++j) range.add(in[j]);
  roundFp16F16c(in + i, out + i, n - i);
  return range;
}

bool haveAvx512Bf16() {
  static const bool kHave = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
  return kHave;
}

// BF16 by VCVTNEPS2BF16 (AVX512_BF16), 16 lanes at a time: it rounds to nearest even as roundBf16 does for
// every zero, normal and infinite input, overflowing to inf, but it reads a float32 subnormal input as
// zero and quiets a NaN its own way, so the 16 values of a group holding either take roundBf16 instead.
// In place (in == out) too. With kRange, also the range of the input (roundFp16Avx512WithRange).
template <bool kRange>
__attribute__((target("avx512f,avx512bw,avx512bf16"))) BitsRange roundBf16Avx512Bf16(const float* in, float* out,
                                                                                     int64_t n) {
  const __m512i subnormalWidth = _mm512_set1_epi32(0x007FFFFF), infinity = _mm512_set1_epi32(0x7F800000);
  LaneRange lanes;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    __m512i lessOne;
    const __m512i b = lanes.take<kRange>(x, lessOne);
    const __mmask16 special =
        _mm512_cmplt_epu32_mask(lessOne, subnormalWidth) | _mm512_cmpgt_epu32_mask(b, infinity);
    if (special != 0) {
      for (int64_t j = i; j < i + 16; ++j) out[j] = roundBf16(in[j]);
      continue;
    }
    const __m256i h = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x));
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  BitsRange range;
  if constexpr (kRange) range = lanes.reduce();
  for (; i < n; ++i) {
    if constexpr (kRange) range.add(in[i]);
    out[i] = roundBf16(in[i]);
  }
  return range;
}

AMPSCOPE_VECTOR_CLONES BitsRange roundBf16BlockWithRange(const float* __restrict in, float* __restrict out,
                                                         int64_t n) {
  BitsRange range;
  for (int64_t i = 0; i < n; ++i) {
    range.add(in[i]);
    out[i] = roundBf16(in[i]);
  }
  return range;
}

void roundBlock(const float* in, float* out, int64_t n, LowFormat format) {
  if (format == LowFormat::FP16) {
    if (haveAvx512()) {
      roundFp16Avx512(in, out, n);
    } else if (haveF16c()) {
      roundFp16F16c(in, out, n);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = roundFp16Scalar(in[i]);
    }
  } else if (haveAvx512Bf16()) {
    roundBf16Avx512Bf16<false>(in, out, n);
  } else {
    roundBf16Block(in, out, n);
  }
}

// What rounding does to each value, read off its magnitude's bits with the format's exact RNE thresholds
// (exponent_histogram_builder.h): the same counts as comparing each value with its rounded value (the
// tests check). Each class is one unsigned range compare (b - lo < width wraps what lies below lo above
// width), counted in 32-bit lanes per chunk (the 64-bit sums, widened per element, took half the time).
//   flushed:    b in [1, flushedMax]
//   subnormal:  b in (flushedMax, subnormalBelow)
//   overflowed: b in [overflowFrom, 0x7F800000)
//   nan:        b > 0x7F800000
AMPSCOPE_VECTOR_CLONES void countByThresholds(const float* __restrict in, int64_t n, const RangeThresholds& t,
                                              RoundingCounts& c) {
  const uint32_t flushedMax = t.flushedMax;
  const uint32_t subnormalLo = t.flushedMax + 1;
  const uint32_t subnormalWidth = t.subnormalBelow - subnormalLo;
  const uint32_t overflowFrom = t.overflowFrom;
  const uint32_t overflowWidth = 0x7F800000u - t.overflowFrom;
  // Most chunks hold no value of any class: a min/max pass (4 operations a lane instead of 13) finds
  // those, and only the others are counted. Zeros wrap to the top in b - 1 and count as clean.
  constexpr int64_t kChunk = 256;
  uint64_t flushed = 0, subnormal = 0, overflowed = 0, nan = 0;
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t end = std::min(n, start + kChunk);
    BitsRange range;
    for (int64_t i = start; i < end; ++i) range.add(in[i]);
    if (range.clean(t)) continue;
    uint32_t chunkFlushed = 0, chunkSubnormal = 0, chunkOverflowed = 0, chunkNan = 0;
    for (int64_t i = start; i < end; ++i) {
      const uint32_t b = bitsOf(in[i]) & 0x7FFFFFFFu;
      chunkFlushed += (b - 1u) < flushedMax;
      chunkSubnormal += (b - subnormalLo) < subnormalWidth;
      chunkOverflowed += (b - overflowFrom) < overflowWidth;
      chunkNan += b > 0x7F800000u;
    }
    flushed += chunkFlushed;
    subnormal += chunkSubnormal;
    overflowed += chunkOverflowed;
    nan += chunkNan;
  }
  c.flushedToZero += static_cast<int64_t>(flushed);
  c.subnormal += static_cast<int64_t>(subnormal);
  c.overflowed += static_cast<int64_t>(overflowed);
  c.nan += static_cast<int64_t>(nan);
}

RangeFormat rangeFormatOf(LowFormat format) {
  return format == LowFormat::FP16 ? RangeFormat::FP16 : RangeFormat::BF16;
}

constexpr int64_t kBlock = 1024;  // counted, then rounded while in cache

}  // namespace

const char* lowFormatDtypeName(LowFormat format) {
  return format == LowFormat::FP16 ? "float16" : "bfloat16";
}

float lowFormatMinNormal(LowFormat format) {
  return format == LowFormat::FP16 ? 6.103515625e-05f /* 2^-14 */ : 1.17549435e-38f /* 2^-126 */;
}

float roundScalar(float value, LowFormat format) {
  return format == LowFormat::FP16 ? roundFp16Scalar(value) : roundBf16(value);
}

void roundToFormat(const float* in, float* out, int64_t n, LowFormat format, RoundingCounts* counts) {
  if (counts == nullptr) {
    roundBlock(in, out, n, format);
    return;
  }
  const RangeThresholds& thresholds = rangeThresholds()[static_cast<std::size_t>(rangeFormatOf(format))];
  RoundingCounts c;
  // Out of place, the rounding pass takes each block's range, and only a block whose range reaches a
  // threshold is counted, while it is in cache. In place, each block is counted before it is rounded.
  const bool fusedRange = in != out && (format == LowFormat::BF16 || haveAvx512());
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    if (fusedRange) {
      const BitsRange range = format == LowFormat::FP16 ? roundFp16Avx512WithRange(in + start, out + start, len)
                              : haveAvx512Bf16()        ? roundBf16Avx512Bf16<true>(in + start, out + start, len)
                                                        : roundBf16BlockWithRange(in + start, out + start, len);
      if (!range.clean(thresholds)) countByThresholds(in + start, len, thresholds, c);
    } else {
      countByThresholds(in + start, len, thresholds, c);
      roundBlock(in + start, out + start, len, format);
    }
  }
  c.elements = n;
  counts->add(c);
}

void countRounding(const float* in, int64_t n, LowFormat format, RoundingCounts* counts) {
  RoundingCounts c;
  countByThresholds(in, n, rangeThresholds()[static_cast<std::size_t>(rangeFormatOf(format))], c);
  c.elements = n;
  counts->add(c);
}

AMPSCOPE_VECTOR_CLONES void classifyStored(const uint16_t* bits, int64_t n, LowFormat format, RoundingCounts* counts) {
  const int exponentShift = format == LowFormat::FP16 ? 10 : 7;
  const uint16_t exponentMask = format == LowFormat::FP16 ? 0x1F : 0xFF;
  const uint16_t mantissaMask = static_cast<uint16_t>((1u << exponentShift) - 1u);
  RoundingCounts c;
  // Branch-free, so the loop vectorises.
  int64_t subnormal = 0;
  int64_t infinite = 0;
  int64_t nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t b = bits[i];
    const uint16_t exponent = static_cast<uint16_t>((b >> exponentShift) & exponentMask);
    const uint16_t mantissa = b & mantissaMask;
    subnormal += (exponent == 0) & (mantissa != 0);
    infinite += (exponent == exponentMask) & (mantissa == 0);
    nan += (exponent == exponentMask) & (mantissa != 0);
  }
  c.subnormal = subnormal;
  c.overflowed = infinite;
  c.nan = nan;
  c.elements = n;
  counts->add(c);
}

}  // namespace ampscope::detail

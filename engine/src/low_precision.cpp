#include "low_precision.h"

#include <c10/util/Half.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "exponent_histogram_builder.h"
#include "kernel_isa.h"
#include "lane_counts.h"
#include "vector_clones.h"
#include "x86_intrinsics.h"

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

__attribute__((target("avx,f16c"))) void roundFp16F16c(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = roundFp16Scalar(in[i]);
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

AMPSCOPE_VECTOR_CLONES void countByThresholds(const float* __restrict in, int64_t n, const RangeThresholds& t,
                                              RoundingCounts& c);

// countByThresholds' classes over 16 lanes, counted in the rounding pass itself: a value's classes
// follow from its magnitude bits b and b - 1 (a zero wraps to the top), which the rounding loop has in
// registers, where a separate count would read the block again. Per lane 32-bit counts (n < 2^36) of
//   flushed: b - 1 < flushedMax;  belowNormal: b - 1 < subnormalBelow - 1 (flushed or subnormal).
// Overflows and NaNs lie at or above overflowFrom, which nearly no value reaches: the caller keeps the
// largest b of a few groups and counts those groups by countByThresholds where it reached it.
struct LaneClasses {
  __m512i flushed, belowNormal;
  __m512i flushedMax, belowNormalEnd, overflowFrom;
  __attribute__((target("avx512f"))) explicit LaneClasses(const RangeThresholds& t)
      : flushed(_mm512_setzero_si512()),
        belowNormal(_mm512_setzero_si512()),
        flushedMax(_mm512_set1_epi32(static_cast<int>(t.flushedMax))),
        belowNormalEnd(_mm512_set1_epi32(static_cast<int>(t.subnormalBelow - 1))),
        overflowFrom(_mm512_set1_epi32(static_cast<int>(t.overflowFrom))) {}
  // Counts x's lanes and raises `highest` to their largest b.
  __attribute__((target("avx512f"))) void take(__m512 x, __m512i& highest) {
    const __m512i b = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF));
    highest = _mm512_max_epu32(highest, b);
    const __m512i lessOne = _mm512_sub_epi32(b, _mm512_set1_epi32(1));
    const __m512i one = _mm512_set1_epi32(1);
    flushed = _mm512_mask_add_epi32(flushed, _mm512_cmplt_epu32_mask(lessOne, flushedMax), flushed, one);
    belowNormal = _mm512_mask_add_epi32(belowNormal, _mm512_cmplt_epu32_mask(lessOne, belowNormalEnd),
                                        belowNormal, one);
  }
  // take() without the largest b: the lane counts alone.
  __attribute__((target("avx512f"))) void count(__m512 x) {
    const __m512i lessOne = _mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF)),
                                             _mm512_set1_epi32(1));
    const __m512i one = _mm512_set1_epi32(1);
    flushed = _mm512_mask_add_epi32(flushed, _mm512_cmplt_epu32_mask(lessOne, flushedMax), flushed, one);
    belowNormal = _mm512_mask_add_epi32(belowNormal, _mm512_cmplt_epu32_mask(lessOne, belowNormalEnd),
                                        belowNormal, one);
  }
  __attribute__((target("avx512f"))) void addTo(RoundingCounts& c) const {
    const int64_t f = static_cast<uint32_t>(_mm512_reduce_add_epi32(flushed));
    c.flushedToZero += f;
    c.subnormal += static_cast<uint32_t>(_mm512_reduce_add_epi32(belowNormal)) - f;
  }
};

// kGroups groups of 16 values rounded to FP16 and counted. The rounded values wait in registers until
// the groups' largest b is known: where it reaches overflowFrom, the groups' lane counts are dropped and
// countByThresholds counts them from `in`, which in place still holds them. One test per eight groups
// instead of one per group: the compare into a mask register and its branch had cost a third of the
// loop's time (AVX-512 compares into mask registers are what this loop runs short of).
template <int kGroups>
__attribute__((target("avx512f,avx,f16c"), always_inline)) inline void roundFp16GroupsCounting(
    const float* in, float* out, LaneClasses& lanes, const RangeThresholds& t, RoundingCounts& c) {
  const __m512i flushedBefore = lanes.flushed, belowNormalBefore = lanes.belowNormal;
  __m512i highest = _mm512_setzero_si512();
  __m256i rounded[kGroups];
#pragma GCC unroll 8
  for (int k = 0; k < kGroups; ++k) {
    const __m512 x = _mm512_loadu_ps(in + 16 * k);
    lanes.take(x, highest);
    rounded[k] = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  if (__builtin_expect(_mm512_cmpge_epu32_mask(highest, lanes.overflowFrom) != 0, 0)) {
    lanes.flushed = flushedBefore;
    lanes.belowNormal = belowNormalBefore;
    countByThresholds(in, 16 * kGroups, t, c);
  }
#pragma GCC unroll 8
  for (int k = 0; k < kGroups; ++k) _mm512_storeu_ps(out + 16 * k, _mm512_cvtph_ps(rounded[k]));
}

// roundFp16GroupsCounting<8> for data whose values mostly lie between the thresholds (an AMP mode's
// weights, activations and gradients): the eight groups' smallest b - 1 and largest b (a zero wraps to
// the top, as in BitsRange) take two operations a lane where the lane counts take four, and only eight
// groups that hold a flush, a subnormal, an overflow or a NaN are counted, from `in` (which in place
// still holds them: the rounded values are stored after). Returns whether they were.
__attribute__((target("avx512f,avx,f16c"), always_inline)) inline bool roundFp16EightGroupsGated(
    const float* in, float* out, LaneClasses& lanes, const RangeThresholds& t, RoundingCounts& c) {
  constexpr int kGroups = 8;
  __m512i highest = _mm512_setzero_si512(), lowestLessOne = _mm512_set1_epi32(-1);
  __m256i rounded[kGroups];
#pragma GCC unroll 8
  for (int k = 0; k < kGroups; ++k) {
    const __m512 x = _mm512_loadu_ps(in + 16 * k);
    const __m512i b = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF));
    highest = _mm512_max_epu32(highest, b);
    lowestLessOne = _mm512_min_epu32(lowestLessOne, _mm512_sub_epi32(b, _mm512_set1_epi32(1)));
    rounded[k] = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  const __mmask16 overflow = _mm512_cmpge_epu32_mask(highest, lanes.overflowFrom);
  const __mmask16 below = _mm512_cmplt_epu32_mask(lowestLessOne, lanes.belowNormalEnd);
  const bool dirty = (overflow | below) != 0;
  if (__builtin_expect(dirty, 0)) {
    if (overflow != 0) {
      countByThresholds(in, 16 * kGroups, t, c);
    } else {
      for (int k = 0; k < kGroups; ++k) lanes.count(_mm512_loadu_ps(in + 16 * k));
    }
  }
#pragma GCC unroll 8
  for (int k = 0; k < kGroups; ++k) _mm512_storeu_ps(out + 16 * k, _mm512_cvtph_ps(rounded[k]));
  return dirty;
}

// roundFp16Avx512 that also counts what the rounding does (in == out too). The gated eight groups serve
// while at most a quarter of them need counting; past that (a pure FP16 mode's gradients, a third of
// them subnormal), the rest of the call counts every group, which is then the cheaper.
__attribute__((target("avx512f,avx,f16c"))) void roundFp16Avx512Counting(const float* in, float* out, int64_t n,
                                                                         const RangeThresholds& t,
                                                                         RoundingCounts& c) {
  constexpr int kGroups = 8;
  LaneClasses lanes(t);
  int64_t i = 0;
  for (int64_t chunks = 0, dirty = 0; i + 16 * kGroups <= n && 4 * dirty <= chunks + 4; i += 16 * kGroups, ++chunks) {
    dirty += roundFp16EightGroupsGated(in + i, out + i, lanes, t, c);
  }
  for (; i + 16 * kGroups <= n; i += 16 * kGroups) roundFp16GroupsCounting<kGroups>(in + i, out + i, lanes, t, c);
  for (; i + 16 <= n; i += 16) roundFp16GroupsCounting<1>(in + i, out + i, lanes, t, c);
  lanes.addTo(c);
  if (i < n) {
    countByThresholds(in + i, n - i, t, c);
    roundFp16F16c(in + i, out + i, n - i);
  }
}

// BF16 by VCVTNEPS2BF16 (AVX512_BF16), 16 lanes at a time: it rounds to nearest even as roundBf16 does for
// every zero, normal and infinite input, overflowing to inf, but it reads a float32 subnormal input as
// zero and quiets a NaN its own way, so the 16 values of a group holding either take roundBf16 instead.
// In place (in == out) too. With kCount, also what the rounding does: BF16's flush and subnormal edges
// lie among float32's subnormals, so with the groups at or above its overflow edge, the groups that hold
// any class are the ones that take roundBf16 already (or nearly: an overflow is rare), and only those
// are counted, by countByThresholds.
template <bool kCount>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512bf16"))) void roundBf16Avx512Bf16(
    const float* in, float* out, int64_t n, const RangeThresholds* t = nullptr, RoundingCounts* counted = nullptr) {
  // VFPCLASSPS (AVX512DQ, which every CPU with AVX512_BF16 has: kernelIsaHasBf16 implies x86-64-v4)
  // finds the subnormals and NaNs of a group in one instruction: categories 0x01 QNaN, 0x20 denormal,
  // 0x80 SNaN (Intel SDM, VFPCLASSPS), zeros not included.
  constexpr int kSubnormalOrNan = 0x01 | 0x20 | 0x80;
  const __m512i overflowFrom = _mm512_set1_epi32(kCount ? static_cast<int>(t->overflowFrom) : 0);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    __mmask16 special = _mm512_fpclass_ps_mask(x, kSubnormalOrNan);
    if constexpr (kCount) {
      const __m512i b = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF));
      special |= _mm512_cmpge_epu32_mask(b, overflowFrom);
    }
    if (special != 0) {
      if constexpr (kCount) countByThresholds(in + i, 16, *t, *counted);
      for (int64_t j = i; j < i + 16; ++j) out[j] = roundBf16(in[j]);
      continue;
    }
    const __m256i h = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x));
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  if constexpr (kCount) {
    if (i < n) countByThresholds(in + i, n - i, *t, *counted);
  }
  for (; i < n; ++i) out[i] = roundBf16(in[i]);
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
    if (kernelIsa() == KernelIsa::X86_64_V4) {
      roundFp16Avx512(in, out, n);
    } else if (kernelIsa() == KernelIsa::X86_64_V3) {
      roundFp16F16c(in, out, n);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = roundFp16Scalar(in[i]);
    }
  } else if (kernelIsaHasBf16()) {
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
// (Declared above the rounding loops, whose tails it counts.)
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
  // With AVX-512 the rounding pass counts too (in place as well). Otherwise, out of place, the BF16
  // rounding pass takes each block's range, and only a block whose range reaches a threshold is counted,
  // while it is in cache; in place, and for FP16, each block is counted before it is rounded.
  if (format == LowFormat::FP16 ? kernelIsa() == KernelIsa::X86_64_V4 : kernelIsaHasBf16()) {
    if (format == LowFormat::FP16) {
      roundFp16Avx512Counting(in, out, n, thresholds, c);
    } else {
      roundBf16Avx512Bf16<true>(in, out, n, &thresholds, &c);
    }
    c.elements = n;
    counts->add(c);
    return;
  }
  const bool fusedRange = in != out && format == LowFormat::BF16;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    if (fusedRange) {
      const BitsRange range = roundBf16BlockWithRange(in + start, out + start, len);
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
  // On the magnitude m = b & 0x7FFF: subnormal when m - 1 < 2^mantissaBits - 1, inf when m is the all-ones
  // exponent alone, NaN above it.
  const uint16_t subnormalMax = format == LowFormat::FP16 ? 0x03FF : 0x007F;
  const uint16_t infinity = format == LowFormat::FP16 ? 0x7C00 : 0x7F80;
  uint64_t c[3] = {};
  countInLanes<uint16_t, 32>(
      bits, n, c,
      [=](uint16_t b) { return static_cast<uint16_t>(static_cast<uint16_t>(b & 0x7FFF) - 1) < subnormalMax; },
      [=](uint16_t b) { return static_cast<uint16_t>(b & 0x7FFF) == infinity; },
      [=](uint16_t b) { return static_cast<uint16_t>(b & 0x7FFF) > infinity; });
  RoundingCounts classes;
  classes.subnormal = static_cast<int64_t>(c[0]);
  classes.overflowed = static_cast<int64_t>(c[1]);
  classes.nan = static_cast<int64_t>(c[2]);
  classes.elements = n;
  counts->add(classes);
}

}  // namespace ampscope::detail

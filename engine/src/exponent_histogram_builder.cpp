#include "exponent_histogram_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "kernel_isa.h"
#include "lane_counts.h"
#include "vector_clones.h"
#include "x86_intrinsics.h"

namespace ampscope::detail {

namespace {

// Round-to-nearest-even thresholds, so the overlays need no rounding per value: with m the smallest
// subnormal of the target (FP16 2^-24, BF16 2^-133), |x| <= m/2 rounds to zero (the tie goes to the
// even zero), and |x| < minNormal - m/2 stays subnormal (the tie at minNormal - m/2 goes to the even
// minNormal). Both thresholds are exact float32 values.
struct Overlay {
  float underflowMax;   // m/2
  float subnormalBelow; // minNormal - m/2
};

Overlay overlayFor(LowFormat target) {
  if (target == LowFormat::FP16) {
    return {std::ldexp(1.0f, -25), std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)};
  }
  return {std::ldexp(1.0f, -134), std::ldexp(1.0f, -126) - std::ldexp(1.0f, -134)};
}

uint32_t float32Bits(double exact) {
  const float value = static_cast<float>(exact);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Every threshold is exact in double and in float32 (the tests check it). The ties: minSub/2 goes to the
// even zero and minNorm - minSub/2 to the even minNorm in every format; max + ulpMax/2 goes to inf when
// max's mantissa is odd (all ones: IEEE formats, E5M2) but back to max when it is even: E4M3FN's max 448
// is 1.110b * 2^8 (1.111b * 2^8 is its NaN), so 464 rounds to 448 and only what lies above overflows.
RangeThresholds thresholdsOf(DType dtype) {
  const FInfo info = finfo(dtype);
  const double halfMinSub = info.smallestSubnormal / 2;
  const double tie = info.max + ulp(dtype, info.max) / 2;
  uint32_t overflowFrom = float32Bits(tie);
  if (!roundValue(dtype, tie).overflowed) ++overflowFrom;  // the next float32 above the tie
  return {float32Bits(halfMinSub), float32Bits(info.smallestNormal - halfMinSub), overflowFrom};
}

}  // namespace

const std::array<RangeThresholds, kRangeFormats>& rangeThresholds() {
  static const std::array<RangeThresholds, kRangeFormats> thresholds = {
      thresholdsOf(DType::FP16), thresholdsOf(DType::BF16), thresholdsOf(DType::FP8E4M3FN),
      thresholdsOf(DType::FP8E5M2)};
  return thresholds;
}

namespace {

int binOf(uint32_t magnitude) {
  const uint32_t exponentField = magnitude >> 23;
  // float32 subnormal: value = mantissa * 2^-149.
  return exponentField == 0 ? -149 + (31 - __builtin_clz(magnitude)) : static_cast<int>(exponentField) - 127;
}

// Every count except the exponent bins is a count of magnitudes at or below a threshold (positive
// floats order like their bit patterns), or a difference of two: x < t is x <= t - 1 in bits.
enum Threshold : int {
  kZero,  // |x| == 0
  kOverlayUnderflow,
  kOverlaySubnormal,
  kFormatFirst,  // per format: flushedMax, subnormalBelow - 1, overflowFrom - 1
  kFinite = kFormatFirst + 3 * kRangeFormats,  // the largest finite magnitude
  kInfinite,                                   // +-inf; above it: NaN
  kThresholds
};

struct ThresholdTable {
  std::array<uint32_t, kThresholds> at;
  // Per threshold: its exponent field, whether it sets every mantissa bit of that field (then the count
  // at or below it is all of the fields up to its own), and the first threshold of equal value (which
  // alone is counted; the others copy it).
  std::array<uint32_t, kThresholds> field;
  std::array<bool, kThresholds> wholeField;
  std::array<std::size_t, kThresholds> same;
};

uint32_t bitsOfFloat(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Fills field, wholeField and same from `at`.
void indexThresholds(ThresholdTable& t) {
  for (std::size_t k = 0; k < kThresholds; ++k) {
    t.field[k] = t.at[k] >> 23;
    t.wholeField[k] = (t.at[k] & 0x7FFFFFu) == 0x7FFFFFu;
    t.same[k] = k;
    for (std::size_t j = 0; j < k; ++j) {
      if (t.at[j] == t.at[k]) {
        t.same[k] = j;
        break;
      }
    }
  }
}

ThresholdTable makeThresholdTable(LowFormat target) {
  const Overlay overlay = overlayFor(target);
  const auto& ranges = rangeThresholds();
  ThresholdTable t;
  t.at[kZero] = 0;
  t.at[kOverlayUnderflow] = bitsOfFloat(overlay.underflowMax);
  t.at[kOverlaySubnormal] = bitsOfFloat(overlay.subnormalBelow) - 1;
  for (std::size_t f = 0; f < kRangeFormats; ++f) {
    t.at[kFormatFirst + 3 * f] = ranges[f].flushedMax;
    t.at[kFormatFirst + 3 * f + 1] = ranges[f].subnormalBelow - 1;
    t.at[kFormatFirst + 3 * f + 2] = ranges[f].overflowFrom - 1;
  }
  t.at[kFinite] = 0x7F7FFFFFu;
  t.at[kInfinite] = 0x7F800000u;
  indexThresholds(t);
  return t;
}

float floatOfBits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// The thresholds of `t` for the data before a multiplication by 2^e: u = x * 2^e is at or below t
// exactly when x is at or below t * 2^-e, as long as the product is exact (shiftable() checks the data).
// A threshold past float32's range becomes the largest finite magnitude (every finite x lies below
// it); nullopt where one would lose bits.
std::optional<ThresholdTable> shiftedThresholds(const ThresholdTable& t, int e) {
  ThresholdTable shifted = t;
  for (std::size_t k = 0; k < kThresholds; ++k) {
    if (k == kZero || k == kFinite || k == kInfinite) continue;  // 0, the finite and inf stay what they are
    const float at = floatOfBits(t.at[k]);
    const float moved = std::ldexp(at, -e);
    if (std::isinf(moved)) {
      shifted.at[k] = 0x7F7FFFFFu;
      continue;
    }
    if (moved == 0.0f || std::ldexp(moved, e) != at) return std::nullopt;
    shifted.at[k] = bitsOfFloat(moved);
  }
  indexThresholds(shifted);
  return shifted;
}

const ThresholdTable& thresholdTable(LowFormat target) {
  static const ThresholdTable fp16 = makeThresholdTable(LowFormat::FP16);
  static const ThresholdTable bf16 = makeThresholdTable(LowFormat::BF16);
  return target == LowFormat::FP16 ? fp16 : bf16;
}

// A block's q and field bytes (24 KiB; its magnitudes and keys, written only for the rare blocks that
// need them, 48 more) stay in cache between the passes over it. A block has a fixed cost (its range,
// its narrowWithin, the field counts' totals) that blocks of 2048 paid 46 times for TinyMLP's
// gradients: blocks of 8192 made the scaled pair 20 % faster (ampscope_bench_instruments), and blocks
// of 16384 hardly faster again (3 %).
constexpr int64_t kBlock = 8192;

// How many magnitudes of a block lie in each of four ranges [lo[j], lo[j] + width[j]]: a subtract,
// compare and add per range and element (unsigned wrap-around puts everything below lo above the
// range), which the compiler vectorises; one read of the magnitudes serves the four.
AMPSCOPE_VECTOR_CLONES void countFourRanges(const uint32_t* __restrict magnitude, int64_t n,
                                            const uint32_t* __restrict lo, const uint32_t* __restrict width,
                                            uint32_t* __restrict counts) {
  const uint32_t lo0 = lo[0], lo1 = lo[1], lo2 = lo[2], lo3 = lo[3];
  const uint32_t w0 = width[0], w1 = width[1], w2 = width[2], w3 = width[3];
  uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t m = magnitude[i];
    c0 += (m - lo0) <= w0;
    c1 += (m - lo1) <= w1;
    c2 += (m - lo2) <= w2;
    c3 += (m - lo3) <= w3;
  }
  counts[0] = c0;
  counts[1] = c1;
  counts[2] = c2;
  counts[3] = c3;
}

// countFourRanges over the 16-bit q = magnitude >> 13 (narrow blocks, BlockBuffers): 32 values to a
// vector where AVX-512BW has them (lane_counts.h).
AMPSCOPE_VECTOR_CLONES void countFourRanges16(const uint16_t* __restrict q, int64_t n,
                                              const uint16_t* __restrict lo, const uint16_t* __restrict width,
                                              uint32_t* __restrict counts) {
  const uint16_t lo0 = lo[0], lo1 = lo[1], lo2 = lo[2], lo3 = lo[3];
  const uint16_t w0 = width[0], w1 = width[1], w2 = width[2], w3 = width[3];
  uint64_t c[4] = {};
  countInLanes<uint16_t, 32>(
      q, n, c, [=](uint16_t m) { return static_cast<uint16_t>(m - lo0) <= w0; },
      [=](uint16_t m) { return static_cast<uint16_t>(m - lo1) <= w1; },
      [=](uint16_t m) { return static_cast<uint16_t>(m - lo2) <= w2; },
      [=](uint16_t m) { return static_cast<uint16_t>(m - lo3) <= w3; });
  for (int r = 0; r < 4; ++r) counts[r] = static_cast<uint32_t>(c[r]);
}

#if defined(__x86_64__) && defined(__GNUC__)
// countFourRanges16 for up to eight ranges that share their low end `base` (a narrow block's cumulative
// counts, narrowWithin): the subtraction is done once per vector instead of once per range, and each range
// is a compare into a mask and a subtraction of -1 under it. 16-bit lane counters take n <= 32 * 65535.
template <int K>
__attribute__((target("avx512f,avx512bw"))) void countFromBaseAvx512(const uint16_t* q, int64_t n, uint16_t base,
                                                                    const uint16_t* width, uint32_t* counts) {
  const __m512i low = _mm512_set1_epi16(static_cast<short>(base));
  const __m512i minusOne = _mm512_set1_epi16(-1);
  __m512i w[K], c[K];
  for (int j = 0; j < K; ++j) {
    w[j] = _mm512_set1_epi16(static_cast<short>(width[j]));
    c[j] = _mm512_setzero_si512();
  }
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i v = _mm512_sub_epi16(_mm512_loadu_si512(q + i), low);
    for (int j = 0; j < K; ++j) c[j] = _mm512_mask_sub_epi16(c[j], _mm512_cmple_epu16_mask(v, w[j]), c[j], minusOne);
  }
  if (i < n) {
    const __mmask32 tail = static_cast<__mmask32>((uint64_t{1} << (n - i)) - 1);
    const __m512i v = _mm512_sub_epi16(_mm512_maskz_loadu_epi16(tail, q + i), low);
    for (int j = 0; j < K; ++j) {
      c[j] = _mm512_mask_sub_epi16(c[j], tail & _mm512_cmple_epu16_mask(v, w[j]), c[j], minusOne);
    }
  }
  // The lanes summed in pairs into 32 bits, then stored and added (GCC 12's _mm512_reduce_add_epi32 warns
  // of an uninitialised register in its own header).
  const __m512i ones = _mm512_set1_epi16(1);
  for (int j = 0; j < K; ++j) {
    alignas(64) uint32_t pairs[16];
    _mm512_store_si512(pairs, _mm512_madd_epi16(c[j], ones));
    uint32_t sum = 0;
    for (const uint32_t p : pairs) sum += p;
    counts[j] = sum;
  }
}

// countFromBaseAvx512 for `size` ranges, eight (or what is left) to a pass.
__attribute__((target("avx512f,avx512bw"))) void countFromBase(const uint16_t* q, int64_t n, uint16_t base,
                                                              const uint16_t* width, std::size_t size,
                                                              uint32_t* counts) {
  for (std::size_t first = 0; first < size; first += 8) {
    const std::size_t used = std::min<std::size_t>(8, size - first);
    const uint16_t* w = width + first;
    uint32_t* c = counts + first;
    switch (used) {
      case 1: countFromBaseAvx512<1>(q, n, base, w, c); break;
      case 2: countFromBaseAvx512<2>(q, n, base, w, c); break;
      case 3: countFromBaseAvx512<3>(q, n, base, w, c); break;
      case 4: countFromBaseAvx512<4>(q, n, base, w, c); break;
      case 5: countFromBaseAvx512<5>(q, n, base, w, c); break;
      case 6: countFromBaseAvx512<6>(q, n, base, w, c); break;
      case 7: countFromBaseAvx512<7>(q, n, base, w, c); break;
      default: countFromBaseAvx512<8>(q, n, base, w, c); break;
    }
  }
}
#endif

// -inf among data[i] * multiplier (only looked for in a block that holds an inf or NaN).
uint32_t countNegativeInfinities(const float* data, int64_t n, float multiplier) {
  uint32_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    count += bitsOfFloat(value) == 0xFF800000u;
  }
  return count;
}

// Each value's key, 2 * exponent field + (1 when no mantissa bit is set), counted into four interleaved
// tables (consecutive values of one binade would otherwise wait on each other's increment). The key's
// low bit makes the count of magnitudes exactly 2^k a table entry: it settles every threshold without
// mantissa bits (0, the power-of-two flush thresholds, inf) with no pass over the values, and tells
// zeros (key 1) from float32 subnormals (key 0). The tables keep counting over all blocks of one call
// (a block costs no clearing and no pass over the 512 keys): only the few keys of a threshold's field
// are read per block, as differences of their sums before and after it.
// The increments are bound by memory operations (a load and a store each); the keys come four to a
// load, so that reading them adds a quarter of a load per value instead of one.
using FieldCounts = std::array<std::array<uint32_t, 512>, 4>;
void countExponentKeys(const uint16_t* key, int64_t n, FieldCounts& keys) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t four[2];
    std::memcpy(four, key + i, sizeof four);
    ++keys[0][four[0] & 0xFFFFu];
    ++keys[1][(four[0] >> 16) & 0xFFFFu];
    ++keys[2][(four[0] >> 32) & 0xFFFFu];
    ++keys[3][four[0] >> 48];
    ++keys[0][four[1] & 0xFFFFu];
    ++keys[1][(four[1] >> 16) & 0xFFFFu];
    ++keys[2][(four[1] >> 32) & 0xFFFFu];
    ++keys[3][four[1] >> 48];
  }
  for (; i < n; ++i) ++keys[0][key[i]];
}

// How many of `field` equal first, first + 1, first + 2 and first + 3 (each read of the bytes serves four
// fields), in a byte per lane (lane_counts.h); the callers pad n to a multiple of 64, which leaves no
// scalar tail. Per field and 64 values, a compare into a mask and its addition (three operations as GCC 12 emits
// them) where the compiler has AVX-512BW; per 32 values with AVX2.
AMPSCOPE_VECTOR_CLONES void countFourFieldsLoop(const uint8_t* __restrict field, int64_t n, uint8_t first,
                                                uint32_t* __restrict counts) {
  const auto offsetIs = [first](uint8_t f, uint8_t j) { return static_cast<uint8_t>(f - first) == j; };
  uint64_t c[4] = {};
  countInLanes<uint8_t, 64>(
      field, n, c, [=](uint8_t f) { return offsetIs(f, 0); }, [=](uint8_t f) { return offsetIs(f, 1); },
      [=](uint8_t f) { return offsetIs(f, 2); }, [=](uint8_t f) { return offsetIs(f, 3); });
  for (int r = 0; r < 4; ++r) counts[r] = static_cast<uint32_t>(c[r]);
}

#if defined(__x86_64__) && defined(__GNUC__)
// A narrow block's fields counted sixteen at a time instead of four: each field byte becomes a one-hot
// byte per group of eight fields (a table lookup by VPSHUFB), and the one-hot bytes are summed bit by
// bit in carry-save form (Harley and Seal's population count: sixteen vectors take fifteen carry-save
// adders, two ternary-logic operations each), so that a field costs about a quarter of an operation
// per 64 values where compares cost two.
#define AMPSCOPE_AVX512BW __attribute__((target("avx512f,avx512bw"), always_inline)) inline
struct BitPlanes {
  __m512i ones, twos, fours, eights;  // zeroed by clearPlanes
  std::array<uint64_t, 8> sixteens;   // per bit (field), sixteen for each count
};

AMPSCOPE_AVX512BW void clearPlanes(BitPlanes& p) {
  p.ones = p.twos = p.fours = p.eights = _mm512_setzero_si512();
  p.sixteens.fill(0);
}

// (high, low) = the two-bit sum of a + b + c, bit by bit.
AMPSCOPE_AVX512BW void carrySave(__m512i& high, __m512i& low, __m512i a, __m512i b, __m512i c) {
  low = _mm512_ternarylogic_epi32(a, b, c, 0x96);   // a ^ b ^ c
  high = _mm512_ternarylogic_epi32(a, b, c, 0xE8);  // the majority of a, b, c
}

AMPSCOPE_AVX512BW uint64_t bitCount(__m512i v, int bit) {
  return static_cast<uint64_t>(__builtin_popcountll(
      _mm512_test_epi8_mask(v, _mm512_set1_epi8(static_cast<char>(1u << bit)))));
}

// Adds four vectors of one-hot bytes to p's ones and twos; returns the fours they carry.
AMPSCOPE_AVX512BW __m512i addFour(BitPlanes& p, const __m512i* x) {
  __m512i twosA, twosB, fours;
  carrySave(twosA, p.ones, p.ones, x[0], x[1]);
  carrySave(twosB, p.ones, p.ones, x[2], x[3]);
  carrySave(fours, p.twos, p.twos, twosA, twosB);
  return fours;
}

// Adds sixteen vectors of one-hot bytes to p's planes; returns the sixteens they carry.
AMPSCOPE_AVX512BW __m512i carrySixteen(BitPlanes& p, const __m512i* x) {
  const __m512i foursA = addFour(p, x), foursB = addFour(p, x + 4);
  __m512i eightsA, eightsB, sixteens;
  carrySave(eightsA, p.fours, p.fours, foursA, foursB);
  const __m512i foursC = addFour(p, x + 8), foursD = addFour(p, x + 12);
  carrySave(eightsB, p.fours, p.fours, foursC, foursD);
  carrySave(sixteens, p.eights, p.eights, eightsA, eightsB);
  return sixteens;
}

// Adds sixteen vectors of one-hot bytes to `p`.
AMPSCOPE_AVX512BW void addSixteen(BitPlanes& p, const __m512i* x) {
  const __m512i sixteens = carrySixteen(p, x);
  for (int bit = 0; bit < 8; ++bit) p.sixteens[static_cast<std::size_t>(bit)] += bitCount(sixteens, bit);
}

AMPSCOPE_AVX512BW uint64_t planeTotal(const BitPlanes& p, int bit) {
  return 16 * p.sixteens[static_cast<std::size_t>(bit)] + 8 * bitCount(p.eights, bit) + 4 * bitCount(p.fours, bit) +
         2 * bitCount(p.twos, bit) + bitCount(p.ones, bit);
}

// VPSHUFB's table, the same in each 16-byte lane: offset k of a pass of sixteen fields to the one-hot byte
// of its group of eight (1 << (k - first) for k in [first, first + 8), else 0).
constexpr std::array<uint8_t, 64> oneHotTable(int first) {
  std::array<uint8_t, 64> table{};
  for (int i = 0; i < 64; ++i) {
    const int k = i % 16;
    table[static_cast<std::size_t>(i)] = (k >= first && k < first + 8) ? static_cast<uint8_t>(1u << (k - first)) : 0;
  }
  return table;
}
alignas(64) constexpr std::array<uint8_t, 64> kOneHotFirstEight = oneHotTable(0);
alignas(64) constexpr std::array<uint8_t, 64> kOneHotNextEight = oneHotTable(8);

// counts[j] = how many of field[0, padded) equal low + j, for j < span (padded a multiple of 64, the
// padding zero; low >= 1, so that the zeros, field 0, count in none).
__attribute__((target("avx512f,avx512bw"))) void countFieldsAvx512(const uint8_t* field, int64_t padded,
                                                                  uint32_t low, uint32_t span, uint32_t* counts) {
  // index = field - (low - 1), saturated: 0 for a zero, 1 + j for field low + j.
  const __m512i lowLessOne = _mm512_set1_epi8(static_cast<char>(low - 1));
  const __m512i firstEight = _mm512_load_si512(kOneHotFirstEight.data());
  const __m512i nextEight = _mm512_load_si512(kOneHotNextEight.data());
  // Offsets 0..15 of the sixteen fields of a pass are moved to 0x70..0x7F (VPSHUFB looks up their low
  // four bits); any other index, below the pass (it wraps) or above it, lands at 0x80 or more, which
  // VPSHUFB turns into 0.
  const __m512i toTable = _mm512_set1_epi8(0x70);
  for (uint32_t first = 0; first < span; first += 16) {
    const __m512i passStart = _mm512_set1_epi8(static_cast<char>(1 + first));
    BitPlanes lower, upper;
    clearPlanes(lower);
    clearPlanes(upper);
    for (int64_t i = 0; i < padded; i += 16 * 64) {
      __m512i x[16], y[16];
      for (int v = 0; v < 16; ++v) {
        const int64_t at = i + 64 * v;
        const __m512i bytes = at < padded ? _mm512_loadu_si512(field + at) : _mm512_setzero_si512();
        const __m512i index = _mm512_subs_epu8(bytes, lowLessOne);
        const __m512i offset = _mm512_adds_epu8(_mm512_sub_epi8(index, passStart), toTable);
        x[v] = _mm512_shuffle_epi8(firstEight, offset);
        y[v] = _mm512_shuffle_epi8(nextEight, offset);
      }
      addSixteen(lower, x);
      addSixteen(upper, y);
    }
    for (uint32_t j = 0; j < 16 && first + j < span; ++j) {
      counts[first + j] = static_cast<uint32_t>(j < 8 ? planeTotal(lower, static_cast<int>(j))
                                                      : planeTotal(upper, static_cast<int>(j - 8)));
    }
  }
}

// countFieldsAvx512's bit counts without a population count per bit: GF2P8AFFINEQB with the plane as its
// matrix and byte i = 1 << i as its input moves bit i of each of a quadword's eight bytes into byte i
// (Intel SDM, GF2P8AFFINEQB: result bit b of byte i is the parity of matrix byte 7 - b AND input byte
// i), and VPOPCNTB counts them: per byte (quadword q, bit i), how many of q's bytes hold field i. Those
// add up in bytes, and a VPERMB that swaps q and i and a VPSADBW sum them over the quadwords.
#define AMPSCOPE_GFNI __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni"), always_inline)) inline

AMPSCOPE_GFNI __m512i bitColumns(__m512i plane) {
  return _mm512_popcnt_epi8(_mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(0x8040201008040201LL), plane, 0));
}

alignas(64) constexpr std::array<uint8_t, 64> kSwapQuadwordAndByte = [] {
  std::array<uint8_t, 64> at{};
  for (int i = 0; i < 8; ++i) {
    for (int q = 0; q < 8; ++q) at[static_cast<std::size_t>(8 * i + q)] = static_cast<uint8_t>(8 * q + i);
  }
  return at;
}();

// Adds to sums[i] the bytes (q, i) of `columns` over the eight quadwords q.
AMPSCOPE_GFNI void addColumnSums(__m512i columns, uint64_t* sums) {
  // The zero-masking form: GCC 12's plain one warns of an uninitialised register in its own header.
  const __m512i swapped = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, _mm512_load_si512(kSwapQuadwordAndByte.data()),
                                                        columns);
  alignas(64) uint64_t total[8];
  _mm512_store_si512(total, _mm512_sad_epu8(swapped, _mm512_setzero_si512()));
  for (int i = 0; i < 8; ++i) sums[i] += total[i];
}

// A pass's eight fields from its planes: ones + 2 twos + 4 fours + 8 eights is at most 120 per byte.
AMPSCOPE_GFNI void addPlaneSums(const BitPlanes& p, uint64_t* sums) {
  __m512i w = bitColumns(p.eights);
  w = _mm512_add_epi8(_mm512_add_epi8(w, w), bitColumns(p.fours));
  w = _mm512_add_epi8(_mm512_add_epi8(w, w), bitColumns(p.twos));
  w = _mm512_add_epi8(_mm512_add_epi8(w, w), bitColumns(p.ones));
  addColumnSums(w, sums);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni"))) void countFieldsGfni(
    const uint8_t* field, int64_t padded, uint32_t low, uint32_t span, uint32_t* counts) {
  const __m512i lowLessOne = _mm512_set1_epi8(static_cast<char>(low - 1));
  const __m512i firstEight = _mm512_load_si512(kOneHotFirstEight.data());
  const __m512i nextEight = _mm512_load_si512(kOneHotNextEight.data());
  const __m512i toTable = _mm512_set1_epi8(0x70);
  for (uint32_t first = 0; first < span; first += 16) {
    const __m512i passStart = _mm512_set1_epi8(static_cast<char>(1 + first));
    BitPlanes lower, upper;
    clearPlanes(lower);
    clearPlanes(upper);
    // Per byte (q, i), sixteens: at most 8 a step, so 31 steps before they are summed.
    __m512i lowerSixteens = _mm512_setzero_si512(), upperSixteens = _mm512_setzero_si512();
    std::array<uint64_t, 8> lowerSums{}, upperSums{}, lowerSixteenSums{}, upperSixteenSums{};
    int steps = 0;
    for (int64_t i = 0; i < padded; i += 16 * 64) {
      __m512i x[16], y[16];
      for (int v = 0; v < 16; ++v) {
        const int64_t at = i + 64 * v;
        const __m512i bytes = at < padded ? _mm512_loadu_si512(field + at) : _mm512_setzero_si512();
        const __m512i index = _mm512_subs_epu8(bytes, lowLessOne);
        const __m512i offset = _mm512_adds_epu8(_mm512_sub_epi8(index, passStart), toTable);
        x[v] = _mm512_shuffle_epi8(firstEight, offset);
        y[v] = _mm512_shuffle_epi8(nextEight, offset);
      }
      lowerSixteens = _mm512_add_epi8(lowerSixteens, bitColumns(carrySixteen(lower, x)));
      upperSixteens = _mm512_add_epi8(upperSixteens, bitColumns(carrySixteen(upper, y)));
      if (++steps == 31) {
        addColumnSums(lowerSixteens, lowerSixteenSums.data());
        addColumnSums(upperSixteens, upperSixteenSums.data());
        lowerSixteens = upperSixteens = _mm512_setzero_si512();
        steps = 0;
      }
    }
    addColumnSums(lowerSixteens, lowerSixteenSums.data());
    addColumnSums(upperSixteens, upperSixteenSums.data());
    addPlaneSums(lower, lowerSums.data());
    addPlaneSums(upper, upperSums.data());
    for (uint32_t j = 0; j < 16 && first + j < span; ++j) {
      const std::size_t b = j % 8;
      counts[first + j] = static_cast<uint32_t>(j < 8 ? lowerSums[b] + 16 * lowerSixteenSums[b]
                                                      : upperSums[b] + 16 * upperSixteenSums[b]);
    }
  }
}
#undef AMPSCOPE_GFNI
#undef AMPSCOPE_AVX512BW
#endif

// countFieldsAvx512 where the kernel instruction set has it (then true); false leaves the counting to
// the caller's compare loop.
bool countFieldsFast(const uint8_t* field, int64_t padded, uint32_t low, uint32_t span, uint32_t* counts) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kernelIsa() == KernelIsa::X86_64_V4) {
    if (kernelIsaHasGfni()) {
      countFieldsGfni(field, padded, low, span, counts);
    } else {
      countFieldsAvx512(field, padded, low, span, counts);
    }
    return true;
  }
#endif
  return false;
}

struct MagnitudeRange {
  uint32_t highest;                      // the largest magnitude (inf and NaN included)
  uint32_t lowestNonZero = UINT32_MAX;  // UINT32_MAX where every magnitude is zero
  uint32_t withoutMantissa = 0;          // magnitudes without mantissa bits: zeros, powers of two, inf
  uint32_t lowBits = 0;                  // the OR of the magnitudes' low 13 bits (0: FP16- or BF16-valued)
};

// One block's values as the passes over it read them, kept in L1 between the passes.
struct BlockBuffers {
  alignas(64) uint32_t magnitude[kBlock];  // |x| as bits, written where a pass needs them (ensureMagnitudes)
  // magnitude >> 13 in 16 bits (the exponent field's low 6 bits, the top 10 mantissa bits): a narrow
  // block's threshold passes read these, 32 to a vector (see Passes).
  alignas(64) uint16_t q[kBlock];
  alignas(64) uint16_t key[kBlock];  // countExponentKeys' keys, written for the blocks counted by key
  alignas(64) uint8_t field[kBlock];  // exponent fields
};

// The bits of |data[i] * multiplier| (as magnitudesOf takes them), and with keys, countExponentKeys' keys.
template <bool kKeys>
AMPSCOPE_VECTOR_CLONES void magnitudesAgain(const float* __restrict data, int64_t n, float multiplier,
                                            uint32_t* __restrict magnitude, uint16_t* __restrict key) {
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    const uint32_t bits = bitsOfFloat(value) & 0x7FFFFFFFu;
    magnitude[i] = bits;
    if constexpr (kKeys) {
      key[i] = static_cast<uint16_t>(((bits >> 23) << 1) | static_cast<uint32_t>((bits & 0x7FFFFFu) == 0));
    }
  }
}

constexpr uint32_t exactKey(uint32_t field) { return 2 * field + 1; }  // magnitude 2^(field - 127), or 0, or inf

// Per thread, the field tables of the (at most two) histograms one call builds. They are zero between
// calls, and a call clears only the fields its values took: a call of a few values (a bias, a small
// layer's output) costs no clearing of 8 KiB and no walk over 512 keys.
FieldCounts& fieldScratch(int which) {
  thread_local FieldCounts scratch[2];  // zero-initialised, as every thread_local
  return scratch[which];
}

struct HistogramAccumulator {
  HistogramAccumulator(const ThresholdTable& t, FieldCounts& scratch, const ThresholdTable* alsoTable = nullptr)
      : table(t), fields(scratch), also(alsoTable) {}

  const ThresholdTable& table;
  FieldCounts& fields;                 // since the last fold (uint32: folded before they could wrap)
  std::vector<int64_t> folded;         // per exponent field, what earlier folds counted (rarely used)
  int64_t sinceFold = 0;
  uint32_t lowField = 256, highField = 0;     // the fields the values took (none while low > high)
  std::array<int64_t, kThresholds> within{};  // per counted threshold: values of its field at or below it
  // Optionally a second table counted from the same field counts (the thresholds of a power-of-two
  // multiple of the data, shiftedThresholds): two histograms for one pass over the fields.
  const ThresholdTable* also = nullptr;
  std::array<int64_t, kThresholds> alsoWithin{};
  int64_t negativeInfinities = 0;
  std::array<int64_t, 23> subnormalBins{};  // float32 subnormals: exponents -149 .. -127
  int64_t count = 0;

  uint64_t keySum(uint32_t key) const {
    return uint64_t{fields[0][key]} + fields[1][key] + fields[2][key] + fields[3][key];
  }
  uint64_t fieldSum(uint32_t field) const { return keySum(2 * field) + keySum(exactKey(field)); }

  // The ranges countWithin needs counted over a block, four to a pass over its magnitudes (Bits
  // uint32_t) or over its q (uint16_t, narrowWithin says when they serve).
  template <typename Bits>
  struct Passes {
    std::array<Bits, 2 * kThresholds> low, width;  // the first `size` are set
    std::array<int64_t*, 2 * kThresholds> into;
    std::size_t size = 0;
    void add(Bits lo, Bits hi, int64_t* counted) {
      low[size] = lo;
      width[size] = static_cast<Bits>(hi - lo);
      into[size++] = counted;
    }
    void run(const Bits* values, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
      if constexpr (sizeof(Bits) == 2) {
        // A narrow block's ranges all start at its lowest field (narrowWithin): one subtraction serves them.
        if (size != 0 && kernelIsa() == KernelIsa::X86_64_V4 &&
            std::all_of(low.begin(), low.begin() + size, [&](Bits l) { return l == low[0]; })) {
          std::array<uint32_t, 2 * kThresholds> c;
          countFromBase(values, n, low[0], width.data(), size, c.data());
          for (std::size_t j = 0; j < size; ++j) *into[j] += c[j];
          return;
        }
      }
#endif
      for (std::size_t first = 0; first < size; first += 4) {
        std::array<Bits, 4> lo{}, w{};  // what unused slots count is not read
        const std::size_t used = std::min<std::size_t>(4, size - first);
        for (std::size_t j = 0; j < used; ++j) {
          lo[j] = low[first + j];
          w[j] = width[first + j];
        }
        uint32_t c[4];
        if constexpr (sizeof(Bits) == 4) {
          countFourRanges(values, n, lo.data(), w.data(), c);
        } else {
          countFourRanges16(values, n, lo.data(), w.data(), c);
        }
        for (std::size_t j = 0; j < used; ++j) *into[first + j] += c[j];
      }
    }
  };

  // The lowest field a block took: 0 where it holds a zero (magnitudesOf keeps no smallest magnitude
  // with the zeros, whose count the block's field or key counts give).
  void takeLowField(const MagnitudeRange& range, uint64_t zeros) {
    lowField = std::min(lowField, zeros != 0 ? 0u : range.lowestNonZero >> 23);
  }

  // The threshold counts come from the key counts: every magnitude of a lower field lies below a
  // threshold, every one of a higher field above it, so only a threshold whose own field holds values
  // of this block can need a pass over it (countWithin says which do not).
  // data and multiplier: the values the magnitudes are of (for the sign of an infinity); buffers: the
  // block's magnitudes, q and fields (magnitudesOf); range: the block's largest and smallest non-zero magnitude.
  void block(BlockBuffers& buffers, const float* data, float multiplier, int64_t n, const MagnitudeRange& range) {
    if (n == 0) return;
    if (sinceFold + n > int64_t{0xFFFFFFFF}) fold();
    highField = std::max(highField, range.highest >> 23);
    const uint32_t* magnitude = buffers.magnitude;
    Passes<uint32_t> passes;
    if (isNarrow(range)) {
      const NarrowBlock narrow = countNarrowBlock(buffers.field, n, range);
      takeLowField(range, narrow.zeros);
      Passes<uint16_t> passes16;
      narrowWithin(table, narrow, range.lowBits == 0, within, passes16, passes);
      if (also) narrowWithin(*also, narrow, range.lowBits == 0, alsoWithin, passes16, passes);
      passes16.run(buffers.q, n);
      if (passes.size != 0) {  // rare in narrow blocks: the q passes serve most thresholds
        magnitudesAgain<false>(data, n, multiplier, buffers.magnitude, nullptr);
        passes.run(magnitude, n);
      }
      sinceFold += n;
      count += n;
      return;  // no inf, NaN or float32 subnormal: nothing else to count
    }
    magnitudesAgain<true>(data, n, multiplier, buffers.magnitude, buffers.key);
    const uint16_t* key = buffers.key;
    Snapshot before, alsoBefore;
    snapshot(table, before);
    if (also) snapshot(*also, alsoBefore);
    const uint64_t subnormalsBefore = keySum(0), zerosBefore = keySum(exactKey(0));
    const uint64_t field255Before = fieldSum(255);
    countExponentKeys(key, n, fields);
    sinceFold += n;
    const BlockCounts counts{keySum(0) - subnormalsBefore, keySum(exactKey(0)) - zerosBefore};
    takeLowField(range, counts.zeros);
    countWithin(table, before, counts, within, passes);
    if (also) countWithin(*also, alsoBefore, counts, alsoWithin, passes);
    passes.run(magnitude, n);
    if (fieldSum(255) != field255Before) negativeInfinities += countNegativeInfinities(data, n, multiplier);
    if (counts.subnormals != 0) {
      // float32 subnormals (rare): their binade from the highest mantissa bit.
      for (int64_t i = 0; i < n; ++i) {
        if (magnitude[i] != 0 && (magnitude[i] >> 23) == 0) {
          subnormalBins[static_cast<std::size_t>(binOf(magnitude[i]) - ExponentHistogram::kMinExponent)] += 1;
        }
      }
    }
    count += n;
  }

  // The fields of a block whose non-zero magnitudes are all normal and span fewer than kNarrowFields
  // fields (one layer's gradients span 12 to 22 in blocks of 2048; Gaussian values span 13 to 25 in
  // blocks of 8192, against 10 to 21 in 2048) are counted over the block's field bytes (sixteen fields
  // to a read with AVX-512, countFieldsAvx512; four by compares elsewhere) instead of an increment per
  // value. The byte counts stay the faster up to 48 fields (ampscope_bench_instruments'
  // histogramOfSpan); q's six bits of the field allow at most 64 (narrowWithin). All of a field's count
  // goes to its mantissa key (fieldSum reads the sum; the exact keys are read only for blocks counted by
  // key), and the block's own counts say which thresholds need a pass, with no snapshot of the tables.
  static constexpr uint32_t kNarrowFields = 48;
  static_assert(kNarrowFields <= 64, "q = magnitude >> 13 keeps six bits of the exponent field");
  static bool isNarrow(const MagnitudeRange& range) {
    if (range.lowestNonZero == UINT32_MAX) return true;  // nothing but zeros
    const uint32_t low = range.lowestNonZero >> 23, high = range.highest >> 23;
    return low != 0 && high < 255 && high - low < kNarrowFields;
  }
  struct NarrowBlock {
    uint32_t low = 1, high = 0;                  // the fields of the non-zero magnitudes (none: low > high)
    std::array<uint32_t, kNarrowFields> fields;  // per field from low to high, the block's count
    std::array<uint64_t, kNarrowFields> below;   // per field from low to high, the block's count below it
    uint64_t zeros = 0;
    uint32_t powersOfTwo = 0;                    // non-zero magnitudes without mantissa bits
  };
  NarrowBlock countNarrowBlock(uint8_t* field, int64_t n, const MagnitudeRange& range) {
    NarrowBlock block;
    uint64_t nonZero = 0;
    if (range.lowestNonZero != UINT32_MAX) {
      block.low = range.lowestNonZero >> 23;
      block.high = range.highest >> 23;
      const int64_t padded = (n + 63) / 64 * 64;  // within the block buffer; field 0 is never counted here
      std::fill(field + n, field + padded, uint8_t{0});
      const uint32_t span = block.high - block.low + 1;
      std::array<uint32_t, kNarrowFields + 3> c;  // room for the last group of four
      if (!countFieldsFast(field, padded, block.low, span, c.data())) {
        for (uint32_t j = 0; j < span; j += 4) {
          countFourFieldsLoop(field, padded, static_cast<uint8_t>(block.low + j), c.data() + j);
        }
      }
      for (uint32_t j = 0; j < span; ++j) {  // what the last group counted past high is not read
        block.fields[j] = c[j];
        block.below[j] = nonZero;
        fields[0][2 * (block.low + j)] += c[j];
        nonZero += c[j];
      }
    }
    block.zeros = static_cast<uint64_t>(n) - nonZero;
    fields[0][exactKey(0)] += static_cast<uint32_t>(block.zeros);
    block.powersOfTwo = static_cast<uint32_t>(range.withoutMantissa - block.zeros);
    return block;
  }
  // countWithin for a narrow block: field 0 holds only its zeros; a threshold of an occupied field costs
  // a pass unless it is a power of two and the block holds none.
  // The pass reads q = m >> 13 instead of m where m <= t and q <= t >> 13 agree for every m: when t's low
  // 13 bits are all ones (the subnormal edges of FP16, E4M3 and E5M2 are), or the block has no low bit
  // set (`clean`: FP16- or BF16-valued gradients). Each pass counts from the block's lowest field up,
  // [low << 10, t >> 13] modulo 2^16, and the block's values of the fields below f are taken off again.
  // q keeps 6 bits of the field: the range holds no value of a field above f (the block spans fewer than
  // kNarrowFields <= 64 fields, so q - (low << 10) does not wrap), but the zeros (q = 0) where it
  // reaches past a multiple of 64 fields (field 128 is 2^1, where a loss scale of 2^16 moves the FP16
  // edge): those are taken off again.
  void narrowWithin(const ThresholdTable& t, const NarrowBlock& block, bool clean,
                    std::array<int64_t, kThresholds>& counts, Passes<uint16_t>& passes16,
                    Passes<uint32_t>& passes) const {
    for (std::size_t k = 0; k < kThresholds; ++k) {
      if (t.same[k] != k || t.wholeField[k]) continue;
      const uint32_t f = t.field[k];
      if (f == 0) {
        counts[k] += static_cast<int64_t>(block.zeros);
      } else if (f >= block.low && f <= block.high && block.fields[f - block.low] != 0 &&
                 ((t.at[k] & 0x7FFFFFu) != 0 || block.powersOfTwo != 0)) {
        if (clean || (t.at[k] & 0x1FFFu) == 0x1FFFu) {
          // Counted from the block's lowest field up (so that every range of the block shares its low
          // end, Passes::run): the values of the fields below f are taken off again.
          const auto lo = static_cast<uint16_t>(block.low << 10), hi = static_cast<uint16_t>(t.at[k] >> 13);
          passes16.add(lo, hi, &counts[k]);
          counts[k] -= static_cast<int64_t>(block.below[f - block.low]);
          if (static_cast<uint16_t>(0u - lo) <= static_cast<uint16_t>(hi - lo)) {
            counts[k] -= static_cast<int64_t>(block.zeros);
          }
        } else {
          passes.add(f << 23, t.at[k], &counts[k]);
        }
      }
    }
  }

  // Per threshold, its field's count and its exact key's count before a block.
  struct Snapshot {
    std::array<uint64_t, kThresholds> field, exact;
  };
  void snapshot(const ThresholdTable& t, Snapshot& s) const {
    for (std::size_t k = 0; k < kThresholds; ++k) {
      s.field[k] = fieldSum(t.field[k]);
      s.exact[k] = keySum(exactKey(t.field[k]));
    }
  }
  struct BlockCounts {
    uint64_t subnormals, zeros;  // float32 subnormal magnitudes and zeros in the block
  };

  // A threshold without mantissa bits is the lowest magnitude of its field: what of the field lies at or
  // below it is its exact key's count. One in field 0 (a float32 subnormal) has only the zeros below it
  // when the block holds no subnormal. Only the rest cost a pass over the block (`passes`, which adds
  // to `counts` when run).
  void countWithin(const ThresholdTable& t, const Snapshot& before, const BlockCounts& block,
                   std::array<int64_t, kThresholds>& counts, Passes<uint32_t>& passes) const {
    for (std::size_t k = 0; k < kThresholds; ++k) {
      if (t.same[k] != k || t.wholeField[k]) continue;
      if (fieldSum(t.field[k]) == before.field[k]) continue;  // none of this block in t's field
      if ((t.at[k] & 0x7FFFFFu) == 0) {
        counts[k] += static_cast<int64_t>(keySum(exactKey(t.field[k])) - before.exact[k]);
      } else if (t.field[k] == 0 && block.subnormals == 0) {
        counts[k] += static_cast<int64_t>(block.zeros);
      } else {
        passes.add(t.field[k] << 23, t.at[k], &counts[k]);
      }
    }
  }

  // Moves the field counts into `folded` and clears the tables (over the fields taken).
  void fold() {
    if (folded.empty()) folded.assign(256, 0);
    for (uint32_t e = lowField; e <= highField && e < 256; ++e) {
      folded[e] += static_cast<int64_t>(fieldSum(e));
      for (auto& t : fields) t[2 * e] = t[exactKey(e)] = 0;
    }
    sinceFold = 0;
  }

  std::array<int64_t, kThresholds> atOrBelow{};  // set by finish()
  // Set by finish(): the bins of exponents max(lowField, 1) - 127 ..., the first normalBinCount of them
  // (an array, not a vector grown a bin at a time: 17 to 64 binades took six or seven allocations, capacity
  // 1, 2, 4, ...).
  std::array<int64_t, 254> normalBins;
  std::size_t normalBinCount = 0;

  // After the last block, once: the totals of every threshold and the normal binades' bins. Leaves the
  // field tables zero for the next call.
  void finish() {
    if (lowField > highField) return;  // no values
    // below[e - lowField]: values whose exponent field is < e, for e in [lowField, highField + 1].
    std::array<int64_t, 257> below;
    below[0] = 0;
    for (uint32_t e = lowField; e <= highField; ++e) {
      const int64_t total = static_cast<int64_t>(fieldSum(e)) + (folded.empty() ? 0 : folded[e]);
      below[e - lowField + 1] = below[e - lowField] + total;
      if (e >= 1 && e <= 254) normalBins[normalBinCount++] = total;
      for (auto& t : fields) t[2 * e] = t[exactKey(e)] = 0;
    }
    const auto belowField = [&](uint32_t e) {
      return e <= lowField ? 0 : below[std::min(e, highField + 1) - lowField];
    };
    const auto totals = [&](const ThresholdTable& t, const std::array<int64_t, kThresholds>& in,
                            std::array<int64_t, kThresholds>& out) {
      for (std::size_t k = 0; k < kThresholds; ++k) {
        const std::size_t c = t.same[k];
        const uint32_t field = t.field[c];
        out[k] = t.wholeField[c] ? belowField(field + 1) : belowField(field) + in[c];
      }
    };
    totals(table, within, atOrBelow);
    if (also) totals(*also, alsoWithin, alsoAtOrBelow);
  }
  std::array<int64_t, kThresholds> alsoAtOrBelow{};  // set by finish() when `also` is given

  void addTo(ExponentHistogram& histogram) const { addCounts(histogram, atOrBelow, 0); }
  // The histogram of the data times 2^e, whose thresholds `also` holds (valid where shiftable() said so:
  // no value of either is a float32 subnormal, so every bin moves by e).
  void addMultipleTo(ExponentHistogram& histogram, int e) const { addCounts(histogram, alsoAtOrBelow, e); }

  void addCounts(ExponentHistogram& histogram, const std::array<int64_t, kThresholds>& atOrBelow,
                 int binShift) const {
    const auto le = [&](std::size_t k) { return atOrBelow[k]; };
    const int64_t zeros = le(kZero);
    histogram.zero += zeros;
    histogram.negInf += negativeInfinities;
    histogram.posInf += le(kInfinite) - le(kFinite) - negativeInfinities;
    histogram.nan += count - le(kInfinite);
    histogram.targetUnderflow += le(kOverlayUnderflow) - zeros;
    histogram.targetSubnormal += le(kOverlaySubnormal) - le(kOverlayUnderflow);
    for (std::size_t f = 0; f < kRangeFormats; ++f) {
      const std::size_t flushed = kFormatFirst + 3 * f;
      FormatRangeCounts& c = histogram.formats[f];
      c.flushed += le(flushed) - zeros;
      c.subnormal += le(flushed + 1) - le(flushed);
      c.overflowed += le(kFinite) - le(flushed + 2);
    }
    histogram.counts.add(ExponentHistogram::kMinExponent, subnormalBins.data(), subnormalBins.size());
    histogram.counts.add(static_cast<int>(std::max(lowField, 1u)) - 127 + binShift, normalBins.data(),
                         normalBinCount);
    histogram.formatsMeasured = true;
  }
};

// From the bits of |value|, value = data[i] * multiplier (float32, as unscale_ multiplies; 1: the data as
// is): their q and exponent fields (BlockBuffers), and the smallest and largest of them. The bits
// themselves are written again only for a block whose passes read them (magnitudesAgain): most need none.
AMPSCOPE_VECTOR_CLONES MagnitudeRange magnitudesOfPortable(const float* data, int64_t n, float multiplier,
                                                   uint16_t* __restrict q, uint8_t* __restrict field) {
  // Signed min/max (every magnitude is below 2^31) vectorise where unsigned ones need SSE4.1. The
  // smallest non-zero is the smallest of bits - 1, where a zero wraps to the largest unsigned.
  int32_t highest = 0;
  uint32_t lowestLessOne = UINT32_MAX, mantissaFree = 0, lowBits = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    const uint32_t bits = bitsOfFloat(value) & 0x7FFFFFFFu;
    q[i] = static_cast<uint16_t>(bits >> 13);
    field[i] = static_cast<uint8_t>(bits >> 23);
    highest = std::max(highest, static_cast<int32_t>(bits));
    lowestLessOne = std::min(lowestLessOne, bits - 1u);
    mantissaFree += static_cast<uint32_t>((bits & 0x7FFFFFu) == 0);
    lowBits |= bits & 0x1FFFu;
  }
  return {static_cast<uint32_t>(highest), lowestLessOne == UINT32_MAX ? UINT32_MAX : lowestLessOne + 1u,
          mantissaFree, lowBits};
}

#if defined(__x86_64__) && defined(__GNUC__)
// magnitudesOfPortable with AVX-512, 32 values a step, in about two thirds of the compiled loop's
// instructions: y = x + x is the magnitude doubled (the sign shifted out), so its unsigned minimum and
// maximum halve to the magnitudes' without a mask; q is the high half of x << 3 (bits 13..28 of the
// magnitude) and the field the high byte of y's high half, each gathered from two vectors by one
// VPERMT2W. The last n % 32 values (a block of fewer than 32: all of it) are the portable loop's.
template <bool kMultiply>
__attribute__((target("avx512f,avx512bw"))) MagnitudeRange magnitudesOfAvx512(const float* data, int64_t n,
                                                                                float multiplier,
                                                                                uint16_t* __restrict q,
                                                                                uint8_t* __restrict field) {
  if (n < 32) return magnitudesOfPortable(data, n, multiplier, q, field);
  alignas(64) static constexpr std::array<uint16_t, 32> kHighHalves = [] {
    std::array<uint16_t, 32> at{};
    for (uint16_t j = 0; j < 32; ++j) at[j] = static_cast<uint16_t>(2 * j + 1);
    return at;
  }();
  const __m512i highHalves = _mm512_load_si512(kHighHalves.data());
  const __m512 times = _mm512_set1_ps(multiplier);
  const __m512i mantissa = _mm512_set1_epi32(0x7FFFFF), two = _mm512_set1_epi32(2), minusOne = _mm512_set1_epi32(-1);
  __m512i highest = _mm512_setzero_si512(), lowestLessOne = minusOne;
  __m512i withoutMantissa = _mm512_setzero_si512(), lowBits = _mm512_setzero_si512();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(data + i), b = _mm512_loadu_ps(data + i + 16);
    if constexpr (kMultiply) {
      a = _mm512_mul_ps(a, times);
      b = _mm512_mul_ps(b, times);
    }
    const __m512i x = _mm512_castps_si512(a), z = _mm512_castps_si512(b);
    const __m512i xTwice = _mm512_add_epi32(x, x), zTwice = _mm512_add_epi32(z, z);
    _mm512_storeu_si512(q + i, _mm512_permutex2var_epi16(_mm512_slli_epi32(x, 3), highHalves,
                                                         _mm512_slli_epi32(z, 3)));
    const __m512i fieldWords = _mm512_srli_epi16(_mm512_permutex2var_epi16(xTwice, highHalves, zTwice), 8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(field + i), _mm512_cvtepi16_epi8(fieldWords));
    highest = _mm512_max_epu32(highest, _mm512_max_epu32(xTwice, zTwice));
    // 2b - 2: a zero wraps to the top, as bits - 1 does.
    lowestLessOne = _mm512_min_epu32(lowestLessOne, _mm512_min_epu32(_mm512_sub_epi32(xTwice, two),
                                                                     _mm512_sub_epi32(zTwice, two)));
    withoutMantissa = _mm512_mask_sub_epi32(withoutMantissa, _mm512_testn_epi32_mask(x, mantissa),
                                            withoutMantissa, minusOne);
    withoutMantissa = _mm512_mask_sub_epi32(withoutMantissa, _mm512_testn_epi32_mask(z, mantissa),
                                            withoutMantissa, minusOne);
    lowBits = _mm512_ternarylogic_epi32(lowBits, x, z, 0xFE);  // a | b | c
  }
  alignas(64) uint32_t lanes[4][16];
  _mm512_store_si512(lanes[0], highest);
  _mm512_store_si512(lanes[1], lowestLessOne);
  _mm512_store_si512(lanes[2], withoutMantissa);
  _mm512_store_si512(lanes[3], lowBits);
  uint32_t highestTwice = 0, lessOneTwice = UINT32_MAX, freeOfMantissa = 0, low = 0;
  for (int l = 0; l < 16; ++l) {
    highestTwice = std::max(highestTwice, lanes[0][l]);
    lessOneTwice = std::min(lessOneTwice, lanes[1][l]);
    freeOfMantissa += lanes[2][l];
    low |= lanes[3][l];
  }
  MagnitudeRange range{highestTwice / 2, lessOneTwice == UINT32_MAX - 1 ? UINT32_MAX : lessOneTwice / 2 + 1,
                       freeOfMantissa, low & 0x1FFFu};
  if (i < n) {
    const MagnitudeRange tail = magnitudesOfPortable(data + i, n - i, multiplier, q + i, field + i);
    range.highest = std::max(range.highest, tail.highest);
    range.lowestNonZero = std::min(range.lowestNonZero, tail.lowestNonZero);
    range.withoutMantissa += tail.withoutMantissa;
    range.lowBits |= tail.lowBits;
  }
  return range;
}
#endif

// The magnitudes' range and summaries of a block, and its q and field bytes (as magnitudesOfPortable).
MagnitudeRange magnitudesOf(const float* data, int64_t n, float multiplier, uint16_t* __restrict q,
                            uint8_t* __restrict field) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kernelIsa() == KernelIsa::X86_64_V4) {
    return multiplier == 1.0f ? magnitudesOfAvx512<false>(data, n, multiplier, q, field)
                              : magnitudesOfAvx512<true>(data, n, multiplier, q, field);
  }
#endif
  return magnitudesOfPortable(data, n, multiplier, q, field);
}

// The smallest non-zero and the largest finite magnitude of data (INT32_MAX and 0 where there are none).
// Branch-free (a zero wraps to the largest unsigned below it), so the loop vectorises.
struct FiniteRange {
  uint32_t lowestNonZero, highest;
};
AMPSCOPE_VECTOR_CLONES FiniteRange finiteNonZeroRange(const float* data, int64_t n) {
  uint32_t lowestLessOne = UINT32_MAX, highest = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t bits = bitsOfFloat(data[i]) & 0x7FFFFFFFu;
    const uint32_t finite = bits & (0u - static_cast<uint32_t>(bits < 0x7F800000u));
    lowestLessOne = lowestLessOne < bits - 1u ? lowestLessOne : bits - 1u;
    highest = highest > finite ? highest : finite;
  }
  return {lowestLessOne == UINT32_MAX ? uint32_t{INT32_MAX} : lowestLessOne + 1u, highest};
}

// Whether every x * 2^e of a block is exact and neither it nor x a float32 subnormal (zeros, infinities
// and NaNs stay what they are): then x * 2^e has x's mantissa and its exponent field moved by e, and
// its histogram is x's, moved. `range` is the block's (magnitudesOf); only a block holding an inf or NaN
// is read again, for its largest finite magnitude.
bool shiftable(const float* data, int64_t n, const MagnitudeRange& range, int e) {
  uint32_t lowest = range.lowestNonZero, highest = range.highest;
  if (highest >= 0x7F800000u) {
    const FiniteRange finite = finiteNonZeroRange(data, n);
    lowest = finite.lowestNonZero;
    highest = finite.highest;
    if (lowest > highest) return true;  // nothing but zeros, infinities and NaNs
  } else if (lowest == UINT32_MAX) {
    return true;  // nothing but zeros
  }
  const int lowField = static_cast<int>(lowest >> 23), highField = static_cast<int>(highest >> 23);
  return lowField >= 1 && lowField + e >= 1 && highField + e <= 254;
}

// e where multiplier is 2^e (a normal float32 with no mantissa bits), nullopt otherwise.
std::optional<int> powerOfTwo(float multiplier) {
  const uint32_t bits = bitsOfFloat(multiplier);
  const uint32_t field = bits >> 23;  // the sign bit too: a negative multiplier is not taken
  if ((bits & 0x7FFFFFu) != 0 || field == 0 || field >= 255) return std::nullopt;
  return static_cast<int>(field) - 127;
}

}  // namespace

void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  ExponentHistogram unused;
  accumulateHistogramPair(data, n, multiplier, target, unused, histogram, /*asIsToo=*/false);
}

void accumulateHistogramPair(const float* data, int64_t n, float multiplier, LowFormat target,
                             ExponentHistogram& asIs, ExponentHistogram& multiplied, bool asIsToo) {
  const ThresholdTable& table = thresholdTable(target);
  const bool separate = asIsToo && multiplier != 1.0f;
  // A loss scale is a power of two, and the scaled gradients lie well inside float32's range: then one
  // pass over the fields of the data serves both histograms, the multiplied one by its moved thresholds.
  // Each block is checked as it comes; where one is not shiftable (a rare step), what was counted is
  // dropped and the two histograms are built apart.
  if (const std::optional<int> e = separate ? powerOfTwo(multiplier) : std::nullopt) {
    // The loss scale changes rarely: the moved table of the last (target, exponent) is kept per thread.
    thread_local struct {
      const ThresholdTable* of = nullptr;
      int e = 0;
      std::optional<ThresholdTable> table;
    } last;
    if (last.of != &table || last.e != *e) last = {&table, *e, shiftedThresholds(table, *e)};
    if (const std::optional<ThresholdTable>& moved = last.table) {
      HistogramAccumulator both(table, fieldScratch(0), &*moved);
      BlockBuffers b;  // not initialised: every pass reads what magnitudesOf wrote
      bool shifts = true;
      for (int64_t start = 0; start < n && shifts; start += kBlock) {
        const int64_t len = std::min(kBlock, n - start);
        const MagnitudeRange range = magnitudesOf(data + start, len, 1.0f, b.q, b.field);
        shifts = shiftable(data + start, len, range, *e);
        if (shifts) both.block(b, data + start, 1.0f, len, range);
      }
      both.finish();  // also leaves the field tables zero for what follows
      if (shifts) {
        both.addTo(asIs);
        both.addMultipleTo(multiplied, *e);
        return;
      }
    }
  }
  HistogramAccumulator second(table, fieldScratch(0));
  std::optional<HistogramAccumulator> first;
  if (separate) first.emplace(table, fieldScratch(1));
  BlockBuffers b;  // not initialised: every pass reads what magnitudesOf wrote
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    MagnitudeRange range = magnitudesOf(data + start, len, multiplier, b.q, b.field);
    second.block(b, data + start, multiplier, len, range);
    if (separate) {
      range = magnitudesOf(data + start, len, 1.0f, b.q, b.field);
      first->block(b, data + start, 1.0f, len, range);
    }
  }
  second.finish();
  second.addTo(multiplied);
  if (separate) first->finish();
  if (asIsToo) (separate ? *first : second).addTo(asIs);
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

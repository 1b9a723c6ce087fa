#include "fp8/block_quantizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ampscope/engine/mode_formats.h"
#include "fp8/element_kernel.h"
#include "fp8/scaling.h"
#include "kernel_isa.h"

namespace ampscope::detail::fp8 {
namespace {

using namespace kernel;

constexpr uint32_t kInfBits = 0x7F800000u;
constexpr uint32_t kQuietNaNBits = 0x7FC00000u;  // std::numeric_limits<float>::quiet_NaN()
constexpr int64_t kNvfp4Block = kNvfp4BlockSize;

// The largest magnitude's bit pattern (NaN patterns are above inf's). Magnitudes are below 2^31, so
// a signed maximum orders them, which SSE2 vectorises without unsigned compares.
AMPSCOPE_ALWAYS_INLINE uint32_t absMaxBits(const float* in, int64_t n) {
  int32_t m = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto a = static_cast<int32_t>(bitsOf(in[i]) & 0x7FFFFFFFu);
    m = a > m ? a : m;
  }
  return static_cast<uint32_t>(m);
}

inline float floatFromAbsMaxBits(uint32_t bits) {
  return bits > kInfBits ? std::numeric_limits<float>::quiet_NaN() : floatOf(bits);
}

// 2^e for e in [-127, 127] without a branch (2^-127 is float32's subnormal 2^22 pattern).
inline float pow2Mx(int32_t e) {
  const uint32_t normal = static_cast<uint32_t>(e + 127) << 23;
  return floatOf(e == -127 ? 0x00400000u : normal);
}

// MX: the shared exponent X of a finite block amax (OCP MX spec 6.3, scaling.h's mxSharedExponent):
// a normal amax's floor(log2) is its exponent field; a zero or subnormal amax's X is below -127 before
// the clamp (its floor(log2) is at most -127 and the element's emax at least 2), so the exponent field
// 0 gives it too.
inline int32_t mxExponent(uint32_t amaxBits, int32_t elementMaxExp) {
  return std::clamp(static_cast<int32_t>(amaxBits >> 23) - 127 - elementMaxExp, -127, 127);
}

// The NVFP4 tensor scale, which maps the tensor's amax onto the largest E4M3 block scale times the
// largest E2M1 element; an all-zero tensor keeps 1. False when the tensor holds inf or NaN.
bool nvfp4TensorScale(float tensorAmax, float* tensorScale) {
  if (!std::isfinite(tensorAmax)) return false;
  const float fp4Max = elementSpec(QuantFormat::E2M1).maxValue;
  const float fp8Max = elementSpec(QuantFormat::E4M3).maxValue;
  float scale = tensorAmax > 0.0f ? (fp8Max * fp4Max) / tensorAmax : 1.0f;
  if (std::isinf(scale)) scale = std::numeric_limits<float>::max();
  *tensorScale = scale;
  return true;
}

void fillNaN(float* out, int64_t n) { std::fill(out, out + n, floatOf(kQuietNaNBits)); }

// Per block (one entry per block, in the order the blocks are stored): the amax pattern, then the
// encode and decode factors (the value is multiplied by `encode` before rounding and the rounded
// element by `decode`) and whether the block becomes NaN. Reused between calls on one thread.
struct BlockTable {
  std::vector<uint32_t> amax;
  std::vector<float> encode, decode;
  std::vector<uint32_t> nan;
  void resize(int64_t blocks) {
    const auto n = static_cast<size_t>(blocks);
    if (amax.size() < n) {
      amax.resize(n);
      encode.resize(n);
      decode.resize(n);
      nan.resize(n);
    }
  }
};
BlockTable& blockTable() {
  thread_local BlockTable table;
  return table;
}

// MX factors of `count` blocks: 2^-X and 2^X with X the shared exponent (exact float32 values for X in
// [-127, 127]); a block holding inf or NaN becomes NaN (the MX spec's NaN scale).
AMPSCOPE_ALWAYS_INLINE void mxFactors(const uint32_t* amax, float* encode, float* decode, uint32_t* nan,
                                      int64_t count, int32_t elementMaxExp) {
  for (int64_t b = 0; b < count; ++b) {
    const int32_t x = mxExponent(amax[b], elementMaxExp);
    encode[b] = pow2Mx(-x);
    decode[b] = pow2Mx(x);
    nan[b] = maskIf(!below(amax[b], kInfBits));
  }
}

// NVFP4 factors of `count` blocks: the E4M3 block scale of (block amax / 6) * tensor scale; a block
// scale of 0 (below E4M3's smallest subnormal) zeroes the block, which encode = decode = 0 does with
// the sign of zero kept (v * 0 * 0 is +-0 as 0 * v is) and every non-zero value counted as flushed.
// The amaxes are finite (the tensor is). The divisions by a zero block scale are computed and dropped.
AMPSCOPE_ALWAYS_INLINE void nvfp4Factors(const uint32_t* amax, float* encode, float* decode, uint32_t* nan,
                                         int64_t count, float tensorScale, float fp4Max, const Kernel& e4m3) {
  for (int64_t b = 0; b < count; ++b) {
    const float blockScale = quantizeOne((floatOf(amax[b]) / fp4Max) * tensorScale, 1.0f, 1.0f, e4m3);
    const uint32_t zero = maskIf(blockScale == 0.0f);
    encode[b] = floatOf(bitsOf(tensorScale / blockScale) & ~zero);
    decode[b] = floatOf(bitsOf(blockScale / tensorScale) & ~zero);
    nan[b] = 0;
  }
}

// One block of a row: n contiguous values, quantised with one pair of factors (N > 0: n == N, known
// to the compiler, which unrolls the loop over whole vectors).
template <int64_t N>
AMPSCOPE_ALWAYS_INLINE void quantizeRun(const float* src, float* dst, int64_t n, float encode, float decode,
                                        const Kernel& k, int64_t* saturated, int64_t* flushed) {
  if constexpr (N > 0) n = N;
  if (saturated == nullptr) {
    for (int64_t i = 0; i < n; ++i) dst[i] = quantizeOne(src[i], encode, decode, k);
    return;
  }
  int64_t s = 0, z = 0;
  for (int64_t i = 0; i < n; ++i) dst[i] = quantizeOneCounted(src[i], encode, decode, k, s, z);
  *saturated += s;
  *flushed += z;
}

// The row-block pass shared by MX and NVFP4, in three loops over the whole matrix: the block amaxes
// (`table.amax`, filled by the caller), the factors (filled by the caller), the blocks quantised.
template <int64_t B>
AMPSCOPE_ALWAYS_INLINE void blockAmaxes(const float* in, int64_t rows, int64_t cols, uint32_t* amax) {
  const int64_t whole = cols / B, blocks = (cols + B - 1) / B;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    uint32_t* a = amax + r * blocks;
    for (int64_t b = 0; b < whole; ++b) a[b] = absMaxBits(row + b * B, B);
    if (whole < blocks) a[whole] = absMaxBits(row + whole * B, cols - whole * B);
  }
}

template <int64_t B>
AMPSCOPE_ALWAYS_INLINE void quantizeBlocks(const float* in, float* out, int64_t rows, int64_t cols,
                                           const BlockTable& table, const Kernel& k, QuantCounts* counts) {
  const int64_t whole = cols / B, blocks = (cols + B - 1) / B;
  int64_t saturated = 0, flushed = 0;
  int64_t* sat = counts ? &saturated : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = in + r * cols;
    float* dst = out + r * cols;
    const int64_t t0 = r * blocks;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t t = t0 + b;
      const int64_t n = b < whole ? B : cols - whole * B;
      if (table.nan[static_cast<size_t>(t)] != 0) {
        fillNaN(dst + b * B, n);
      } else if (b < whole) {
        quantizeRun<B>(src + b * B, dst + b * B, B, table.encode[static_cast<size_t>(t)],
                       table.decode[static_cast<size_t>(t)], k, sat, &flushed);
      } else {
        quantizeRun<0>(src + b * B, dst + b * B, n, table.encode[static_cast<size_t>(t)],
                       table.decode[static_cast<size_t>(t)], k, sat, &flushed);
      }
    }
  }
  if (counts) {
    counts->saturated += saturated;
    counts->flushed += flushed;
  }
}

// The column-block pass shared by MX and NVFP4: per group of `blockSize` rows, the column amaxes
// (vectorised along the row), each column's factors, the group quantised row by row into a tile
// (vectorised along the row, one factor per column), and the tile written transposed into outT.
template <typename FactorsOf>
AMPSCOPE_ALWAYS_INLINE void columnBlocks(const float* in, float* outT, int64_t rows, int64_t cols,
                                         int64_t blockSize, const Kernel& k, FactorsOf factorsOf) {
  BlockTable& table = blockTable();
  table.resize(cols);
  uint32_t* cm = table.amax.data();
  float* enc = table.encode.data();
  float* dec = table.decode.data();
  uint32_t* nanOf = table.nan.data();
  // The tile's rows are padded by one cache line: the transposing read walks down a column, and a
  // stride of a power of two bytes (cols = 512: 2 KiB) would put all of its rows in two L1 sets.
  const int64_t stride = cols + 16;
  thread_local std::vector<float> tileBuffer;
  if (tileBuffer.size() < static_cast<size_t>(blockSize * stride)) tileBuffer.resize(static_cast<size_t>(blockSize * stride));
  float* tile = tileBuffer.data();
  for (int64_t r0 = 0; r0 < rows; r0 += blockSize) {
    const int64_t n = std::min(blockSize, rows - r0);
    for (int64_t c = 0; c < cols; ++c) cm[c] = 0;
    for (int64_t r = 0; r < n; ++r) {
      const float* row = in + (r0 + r) * cols;
      for (int64_t c = 0; c < cols; ++c) {
        const auto a = static_cast<int32_t>(bitsOf(row[c]) & 0x7FFFFFFFu);
        const auto m = static_cast<int32_t>(cm[c]);
        cm[c] = static_cast<uint32_t>(a > m ? a : m);
      }
    }
    factorsOf(cm, enc, dec, nanOf, cols);
    for (int64_t r = 0; r < n; ++r) {
      const float* row = in + (r0 + r) * cols;
      float* t = tile + r * stride;
      for (int64_t c = 0; c < cols; ++c) {
        const uint32_t q = bitsOf(quantizeOne(row[c], enc[c], dec[c], k));
        t[c] = floatOf((q & ~nanOf[c]) | (kQuietNaNBits & nanOf[c]));
      }
    }
    for (int64_t c = 0; c < cols; ++c) {
      float* dst = outT + c * rows + r0;
      const float* t = tile + c;
      for (int64_t r = 0; r < n; ++r) dst[r] = t[r * stride];
    }
  }
}

// The block exponent range of the stats: MX's X and NVFP4's floor(log2(decode)) grow with the block
// amax and the decode factor, so the smallest and largest of those give it.
void noteExponentRange(BlockStats* stats, int minExp, int maxExp) {
  if (!stats->anyBlock) {
    stats->minExp = minExp;
    stats->maxExp = maxExp;
    stats->anyBlock = true;
  } else {
    stats->minExp = std::min(stats->minExp, minExp);
    stats->maxExp = std::max(stats->maxExp, maxExp);
  }
}

AMPSCOPE_ALWAYS_INLINE void quantizeMxBlocksBody(const float* in, float* out, int64_t rows, int64_t cols,
                                                 int64_t blockSize, QuantFormat element, QuantCounts* counts,
                                                 BlockStats* stats) {
  if (rows == 0 || cols == 0) {
    if (stats) stats->tensorAmax = 0.0f;
    return;
  }
  const Kernel k = kernelFor(elementSpec(element));
  const int32_t elementMaxExp = elementSpec(element).maxExp;
  const int64_t blocks = rows * ((cols + blockSize - 1) / blockSize);
  BlockTable& table = blockTable();
  table.resize(blocks);
  uint32_t* amax = table.amax.data();
  if (blockSize == 32) {
    blockAmaxes<32>(in, rows, cols, amax);
  } else {
    const int64_t perRow = (cols + blockSize - 1) / blockSize;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t b = 0; b < perRow; ++b) {
        const int64_t c = b * blockSize;
        amax[r * perRow + b] = absMaxBits(in + r * cols + c, std::min(blockSize, cols - c));
      }
    }
  }
  mxFactors(amax, table.encode.data(), table.decode.data(), table.nan.data(), blocks, elementMaxExp);
  // The tensor amax and, over the finite non-zero blocks, the smallest and largest amax.
  int32_t tensorMax = 0, lo = 0x7FFFFFFF, hi = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const auto a = static_cast<int32_t>(amax[b]);
    tensorMax = a > tensorMax ? a : tensorMax;
    const bool counted = a != 0 && a < static_cast<int32_t>(kInfBits);
    lo = counted && a < lo ? a : lo;
    hi = counted && a > hi ? a : hi;
  }
  if (blockSize == 32) {
    quantizeBlocks<32>(in, out, rows, cols, table, k, counts);
  } else {
    // Other block sizes (tests): one block at a time.
    const int64_t perRow = (cols + blockSize - 1) / blockSize;
    int64_t saturated = 0, flushed = 0;
    int64_t* sat = counts ? &saturated : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t b = 0; b < perRow; ++b) {
        const int64_t c = b * blockSize, t = r * perRow + b, n = std::min(blockSize, cols - c);
        if (table.nan[static_cast<size_t>(t)] != 0) {
          fillNaN(out + r * cols + c, n);
        } else {
          quantizeRun<0>(in + r * cols + c, out + r * cols + c, n, table.encode[static_cast<size_t>(t)],
                         table.decode[static_cast<size_t>(t)], k, sat, &flushed);
        }
      }
    }
    if (counts) {
      counts->saturated += saturated;
      counts->flushed += flushed;
    }
  }
  if (stats) {
    if (hi != 0) {
      noteExponentRange(stats, mxExponent(static_cast<uint32_t>(lo), elementMaxExp),
                        mxExponent(static_cast<uint32_t>(hi), elementMaxExp));
    }
    stats->tensorAmax = floatFromAbsMaxBits(static_cast<uint32_t>(tensorMax));
  }
}

AMPSCOPE_ALWAYS_INLINE void quantizeNvfp4BlocksBody(const float* in, float* out, int64_t rows, int64_t cols,
                                                    QuantCounts* counts, BlockStats* stats) {
  const int64_t blocks = rows * ((cols + kNvfp4Block - 1) / kNvfp4Block);
  BlockTable& table = blockTable();
  table.resize(blocks);
  uint32_t* amax = table.amax.data();
  blockAmaxes<kNvfp4Block>(in, rows, cols, amax);
  int32_t tensorMax = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const auto a = static_cast<int32_t>(amax[b]);
    tensorMax = a > tensorMax ? a : tensorMax;
  }
  const float tensorAmax = floatFromAbsMaxBits(static_cast<uint32_t>(tensorMax));
  if (stats) stats->tensorAmax = tensorAmax;
  float tensorScale = 1.0f;
  if (!nvfp4TensorScale(tensorAmax, &tensorScale)) {
    fillNaN(out, rows * cols);
    return;
  }
  if (stats) stats->tensorScale = tensorScale;
  const Kernel e2m1 = kernelFor(elementSpec(QuantFormat::E2M1));
  const Kernel e4m3 = kernelFor(elementSpec(QuantFormat::E4M3));
  const float fp4Max = elementSpec(QuantFormat::E2M1).maxValue;
  float* decode = table.decode.data();
  nvfp4Factors(amax, table.encode.data(), decode, table.nan.data(), blocks, tensorScale, fp4Max, e4m3);
  // The decode factors are positive (or 0 for a zeroed block): their patterns order them.
  int32_t lo = 0x7FFFFFFF, hi = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const auto d = static_cast<int32_t>(bitsOf(decode[b]));
    lo = d != 0 && d < lo ? d : lo;
    hi = d > hi ? d : hi;
  }
  quantizeBlocks<kNvfp4Block>(in, out, rows, cols, table, e2m1, counts);
  if (stats && hi != 0) {
    noteExponentRange(stats, std::ilogb(floatOf(static_cast<uint32_t>(lo))),
                      std::ilogb(floatOf(static_cast<uint32_t>(hi))));
  }
}

AMPSCOPE_ALWAYS_INLINE void quantizeMxColumnBlocksBody(const float* in, float* outT, int64_t rows, int64_t cols,
                                                       int64_t blockSize, QuantFormat element) {
  if (rows == 0 || cols == 0) return;
  const Kernel k = kernelFor(elementSpec(element));
  const int32_t elementMaxExp = elementSpec(element).maxExp;
  columnBlocks(in, outT, rows, cols, blockSize, k,
               [elementMaxExp](const uint32_t* amax, float* encode, float* decode, uint32_t* nan, int64_t count) {
                 mxFactors(amax, encode, decode, nan, count, elementMaxExp);
               });
}

AMPSCOPE_ALWAYS_INLINE void quantizeNvfp4ColumnBlocksBody(const float* in, float* outT, int64_t rows,
                                                          int64_t cols) {
  if (rows == 0 || cols == 0) return;
  float tensorScale = 1.0f;
  if (!nvfp4TensorScale(floatFromAbsMaxBits(absMaxBits(in, rows * cols)), &tensorScale)) {
    fillNaN(outT, rows * cols);
    return;
  }
  const Kernel e2m1 = kernelFor(elementSpec(QuantFormat::E2M1));
  const Kernel e4m3 = kernelFor(elementSpec(QuantFormat::E4M3));
  const float fp4Max = elementSpec(QuantFormat::E2M1).maxValue;
  columnBlocks(in, outT, rows, cols, kNvfp4Block, e2m1,
               [&](const uint32_t* amax, float* encode, float* decode, uint32_t* nan, int64_t count) {
                 nvfp4Factors(amax, encode, decode, nan, count, tensorScale, fp4Max, e4m3);
               });
}

}  // namespace

AMPSCOPE_ISA_DISPATCH(void, quantizeMxBlocks,
                      (const float* in, float* out, int64_t rows, int64_t cols, int64_t blockSize,
                       QuantFormat element, QuantCounts* counts, BlockStats* stats),
                      (in, out, rows, cols, blockSize, element, counts, stats))
AMPSCOPE_ISA_DISPATCH(void, quantizeNvfp4Blocks,
                      (const float* in, float* out, int64_t rows, int64_t cols, QuantCounts* counts,
                       BlockStats* stats),
                      (in, out, rows, cols, counts, stats))
AMPSCOPE_ISA_DISPATCH(void, quantizeMxColumnBlocks,
                      (const float* in, float* outT, int64_t rows, int64_t cols, int64_t blockSize,
                       QuantFormat element),
                      (in, outT, rows, cols, blockSize, element))
AMPSCOPE_ISA_DISPATCH(void, quantizeNvfp4ColumnBlocks, (const float* in, float* outT, int64_t rows, int64_t cols),
                      (in, outT, rows, cols))

}  // namespace ampscope::detail::fp8

#include "fp8/block_quantizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "fp8/element_kernel.h"
#include "fp8/scaling.h"

namespace ampscope::detail::fp8 {
namespace {

using namespace kernel;

constexpr uint32_t kInfBits = 0x7F800000u;
constexpr uint32_t kQuietNaNBits = 0x7FC00000u;  // std::numeric_limits<float>::quiet_NaN()
constexpr int64_t kNvfp4Block = 16;

void noteExponent(BlockStats* stats, int e) {
  if (stats == nullptr) return;
  if (!stats->anyBlock) {
    stats->minExp = stats->maxExp = e;
    stats->anyBlock = true;
  } else {
    stats->minExp = std::min(stats->minExp, e);
    stats->maxExp = std::max(stats->maxExp, e);
  }
}

// The largest magnitude's bit pattern (NaN patterns are above inf's). Magnitudes are below 2^31, so
// a signed maximum orders them, which SSE2 vectorises without unsigned compares.
inline uint32_t absMaxBits(const float* in, int64_t n) {
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

// One block's encode and decode factors (the value is multiplied by `encode` before rounding and the
// rounded element by `decode`), and whether the block becomes NaN.
struct BlockFactors {
  float encode = 1;
  float decode = 1;
  bool nan = false;
};

// MX: 2^-X and 2^X with X the shared exponent (exact float32 values for X in [-127, 127]).
inline BlockFactors mxFactors(uint32_t amaxBits, int elementMaxExp, int* exponent) {
  BlockFactors f;
  if (amaxBits >= kInfBits) {
    f.nan = true;
    return f;
  }
  // A normal amax's floor(log2) is its exponent field; zero and subnormal amaxes take scaling.h's rule.
  const int x = amaxBits >= 0x00800000u
                    ? std::clamp(static_cast<int>(amaxBits >> 23) - 127 - elementMaxExp, -127, 127)
                    : mxSharedExponent(floatOf(amaxBits), elementMaxExp);
  *exponent = x;
  f.encode = pow2(-x);
  f.decode = pow2(x);
  return f;
}

// NVFP4: the E4M3 block scale of (block amax / 6) * tensor scale; a block scale of 0 (below E4M3's
// smallest subnormal) zeroes the block, which encode = decode = 0 does with the sign of zero kept
// (v * 0 * 0 is +-0 as 0 * v is) and every non-zero value counted as flushed.
inline BlockFactors nvfp4Factors(uint32_t amaxBits, float tensorScale, float fp4Max, const Kernel& e4m3) {
  BlockFactors f;
  const float blockScale = quantizeOne((floatOf(amaxBits) / fp4Max) * tensorScale, 1.0f, 1.0f, e4m3);
  if (blockScale == 0.0f) {
    f.encode = f.decode = 0.0f;
    return f;
  }
  f.encode = tensorScale / blockScale;
  f.decode = blockScale / tensorScale;
  return f;
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

// One block of a row: n contiguous values, quantised with one pair of factors.
inline void quantizeRun(const float* src, float* dst, int64_t n, const BlockFactors& f, const Kernel& k,
                        int64_t* saturated, int64_t* flushed) {
  if (f.nan) {
    fillNaN(dst, n);
    return;
  }
  const float encode = f.encode, decode = f.decode;
  if (saturated == nullptr) {
    for (int64_t i = 0; i < n; ++i) dst[i] = quantizeOne(src[i], encode, decode, k);
    return;
  }
  int64_t s = 0, z = 0;
  for (int64_t i = 0; i < n; ++i) dst[i] = quantizeOneCounted(src[i], encode, decode, k, s, z);
  *saturated += s;
  *flushed += z;
}

// The column-block pass shared by MX and NVFP4: per group of `blockSize` rows, the column amaxes
// (vectorised along the row), each column's factors, the group quantised row by row into a tile
// (vectorised along the row, one factor per column), and the tile written transposed into outT.
template <typename FactorsOf>
void columnBlocks(const float* in, float* outT, int64_t rows, int64_t cols, int64_t blockSize, const Kernel& k,
                  FactorsOf factorsOf) {
  std::vector<int32_t> columnMax(static_cast<size_t>(cols));
  std::vector<float> encode(static_cast<size_t>(cols)), decode(static_cast<size_t>(cols));
  std::vector<uint32_t> nanMask(static_cast<size_t>(cols));
  // The tile's rows are padded by one cache line: the transposing read walks down a column, and a
  // stride of a power of two bytes (cols = 512: 2 KiB) would put all of its rows in two L1 sets.
  const int64_t stride = cols + 16;
  std::vector<float> tile(static_cast<size_t>(blockSize * stride));
  for (int64_t r0 = 0; r0 < rows; r0 += blockSize) {
    const int64_t n = std::min(blockSize, rows - r0);
    std::fill(columnMax.begin(), columnMax.end(), 0);
    int32_t* cm = columnMax.data();
    for (int64_t r = 0; r < n; ++r) {
      const float* row = in + (r0 + r) * cols;
      for (int64_t c = 0; c < cols; ++c) {
        const auto a = static_cast<int32_t>(bitsOf(row[c]) & 0x7FFFFFFFu);
        cm[c] = a > cm[c] ? a : cm[c];
      }
    }
    for (int64_t c = 0; c < cols; ++c) {
      const BlockFactors f = factorsOf(static_cast<uint32_t>(cm[c]));
      encode[static_cast<size_t>(c)] = f.encode;
      decode[static_cast<size_t>(c)] = f.decode;
      nanMask[static_cast<size_t>(c)] = maskIf(f.nan);
    }
    const float* enc = encode.data();
    const float* dec = decode.data();
    const uint32_t* nanOf = nanMask.data();
    for (int64_t r = 0; r < n; ++r) {
      const float* row = in + (r0 + r) * cols;
      float* t = tile.data() + r * stride;
      for (int64_t c = 0; c < cols; ++c) {
        const uint32_t q = bitsOf(quantizeOne(row[c], enc[c], dec[c], k));
        t[c] = floatOf((q & ~nanOf[c]) | (kQuietNaNBits & nanOf[c]));
      }
    }
    for (int64_t c = 0; c < cols; ++c) {
      float* dst = outT + c * rows + r0;
      const float* t = tile.data() + c;
      for (int64_t r = 0; r < n; ++r) dst[r] = t[r * stride];
    }
  }
}

}  // namespace

void quantizeMxBlocks(const float* in, float* out, int64_t rows, int64_t cols, int64_t blockSize,
                      QuantFormat element, QuantCounts* counts, BlockStats* stats) {
  const Kernel k = kernelFor(elementSpec(element));
  const int elementMaxExp = elementSpec(element).maxExp;
  int64_t saturated = 0, flushed = 0;
  int64_t* sat = counts ? &saturated : nullptr;
  uint32_t tensorMax = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; c += blockSize) {
      const int64_t n = std::min(blockSize, cols - c);
      const float* src = in + r * cols + c;
      const uint32_t amaxBits = absMaxBits(src, n);
      tensorMax = std::max(tensorMax, amaxBits);
      int x = 0;
      const BlockFactors f = mxFactors(amaxBits, elementMaxExp, &x);
      if (!f.nan && amaxBits != 0) noteExponent(stats, x);
      quantizeRun(src, out + r * cols + c, n, f, k, sat, &flushed);
    }
  }
  if (counts) {
    counts->saturated += saturated;
    counts->flushed += flushed;
  }
  if (stats) stats->tensorAmax = floatFromAbsMaxBits(tensorMax);
}

void quantizeNvfp4Blocks(const float* in, float* out, int64_t rows, int64_t cols, QuantCounts* counts,
                         BlockStats* stats) {
  const float tensorAmax = floatFromAbsMaxBits(absMaxBits(in, rows * cols));
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
  int64_t saturated = 0, flushed = 0;
  int64_t* sat = counts ? &saturated : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; c += kNvfp4Block) {
      const int64_t n = std::min(kNvfp4Block, cols - c);
      const float* src = in + r * cols + c;
      const BlockFactors f = nvfp4Factors(absMaxBits(src, n), tensorScale, fp4Max, e4m3);
      if (f.decode != 0.0f) noteExponent(stats, std::ilogb(f.decode));
      quantizeRun(src, out + r * cols + c, n, f, e2m1, sat, &flushed);
    }
  }
  if (counts) {
    counts->saturated += saturated;
    counts->flushed += flushed;
  }
}

void quantizeMxColumnBlocks(const float* in, float* outT, int64_t rows, int64_t cols, int64_t blockSize,
                            QuantFormat element) {
  if (rows == 0 || cols == 0) return;
  const Kernel k = kernelFor(elementSpec(element));
  const int elementMaxExp = elementSpec(element).maxExp;
  columnBlocks(in, outT, rows, cols, blockSize, k, [elementMaxExp](uint32_t amaxBits) {
    int x = 0;
    return mxFactors(amaxBits, elementMaxExp, &x);
  });
}

void quantizeNvfp4ColumnBlocks(const float* in, float* outT, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
  float tensorScale = 1.0f;
  if (!nvfp4TensorScale(floatFromAbsMaxBits(absMaxBits(in, rows * cols)), &tensorScale)) {
    fillNaN(outT, rows * cols);
    return;
  }
  const Kernel e2m1 = kernelFor(elementSpec(QuantFormat::E2M1));
  const Kernel e4m3 = kernelFor(elementSpec(QuantFormat::E4M3));
  const float fp4Max = elementSpec(QuantFormat::E2M1).maxValue;
  columnBlocks(in, outT, rows, cols, kNvfp4Block, e2m1, [&](uint32_t amaxBits) {
    return nvfp4Factors(amaxBits, tensorScale, fp4Max, e4m3);
  });
}

}  // namespace ampscope::detail::fp8

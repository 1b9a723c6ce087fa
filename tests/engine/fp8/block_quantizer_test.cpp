// The one-pass block quantisers (block_quantizer.h) against a reference written block by block from the
// element quantiser and the scale rules (scaling.h; OCP MX spec 1.0 section 6.3 for MX, the NVFP4 rule in
// docs/fp8-recipes.md): every output bit, the saturated and flushed counts and the block exponent range
// equal, on matrices with short last blocks, all-zero blocks, subnormal and huge block amaxes, and inf and
// NaN blocks. The column-block passes equal the row-block pass over the contiguous transpose, laid out
// [cols, rows], which is what the backward GEMMs read.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "fp8/block_quantizer.h"
#include "fp8/element_quantizer.h"
#include "fp8/scaling.h"

namespace ampscope::detail::fp8 {
namespace {

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Values spread over many binades, with the special blocks the rules single out.
std::vector<float> testMatrix(int64_t rows, int64_t cols, uint32_t seed, bool specials) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> binade(-40, 40);
  std::vector<float> m(static_cast<size_t>(rows * cols));
  for (auto& v : m) v = std::ldexp(normal(rng), binade(rng) / 4);
  if (!specials) return m;
  auto at = [&](int64_t r, int64_t c) -> float& { return m[static_cast<size_t>(r * cols + c)]; };
  for (int64_t c = 0; c < cols; ++c) at(0, c) = 0.0f;                      // a zero row: zero blocks
  for (int64_t c = 0; c < cols; ++c) at(1, c) = std::ldexp(normal(rng), -140);  // float32 subnormals
  at(2, 5) = std::numeric_limits<float>::infinity();
  at(3, cols - 1) = std::numeric_limits<float>::quiet_NaN();
  at(4, 7) = 3e38f;                                                           // near float32's max
  at(5, 3) = -0.0f;
  return m;
}

// Row blocks, one block at a time through quantize(): the reference.
std::vector<float> referenceMx(const std::vector<float>& in, int64_t rows, int64_t cols, int64_t block,
                               QuantFormat format, QuantCounts* counts, BlockStats* stats) {
  std::vector<float> out(in.size());
  const int emax = elementSpec(format).maxExp;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; c += block) {
      const int64_t n = std::min(block, cols - c);
      const float* src = in.data() + r * cols + c;
      float* dst = out.data() + r * cols + c;
      const float amax = absMax(src, n);
      if (!std::isfinite(amax)) {
        for (int64_t i = 0; i < n; ++i) dst[i] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      const int x = mxSharedExponent(amax, emax);
      if (amax > 0.0f) {
        stats->minExp = stats->anyBlock ? std::min(stats->minExp, x) : x;
        stats->maxExp = stats->anyBlock ? std::max(stats->maxExp, x) : x;
        stats->anyBlock = true;
      }
      quantize(src, dst, n, format, std::ldexp(1.0f, -x), std::ldexp(1.0f, x), counts);
    }
  }
  return out;
}

std::vector<float> referenceNvfp4(const std::vector<float>& in, int64_t rows, int64_t cols, QuantCounts* counts,
                                  BlockStats* stats) {
  std::vector<float> out(in.size());
  const float tensorAmax = absMax(in.data(), static_cast<int64_t>(in.size()));
  if (!std::isfinite(tensorAmax)) {
    std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
    return out;
  }
  float tensorScale = tensorAmax > 0.0f ? (448.0f * 6.0f) / tensorAmax : 1.0f;
  if (std::isinf(tensorScale)) tensorScale = std::numeric_limits<float>::max();
  stats->tensorScale = tensorScale;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; c += 16) {
      const int64_t n = std::min<int64_t>(16, cols - c);
      const float* src = in.data() + r * cols + c;
      float* dst = out.data() + r * cols + c;
      const float blockScale = quantizeValue((absMax(src, n) / 6.0f) * tensorScale, QuantFormat::E4M3);
      if (blockScale == 0.0f) {
        for (int64_t i = 0; i < n; ++i) {
          counts->flushed += src[i] != 0.0f ? 1 : 0;
          dst[i] = 0.0f * src[i];
        }
        continue;
      }
      const float decode = blockScale / tensorScale;
      const int e = std::ilogb(decode);
      stats->minExp = stats->anyBlock ? std::min(stats->minExp, e) : e;
      stats->maxExp = stats->anyBlock ? std::max(stats->maxExp, e) : e;
      stats->anyBlock = true;
      quantize(src, dst, n, QuantFormat::E2M1, tensorScale / blockScale, decode, counts);
    }
  }
  return out;
}

std::vector<float> transposed(const std::vector<float>& m, int64_t rows, int64_t cols) {
  std::vector<float> t(m.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = m[static_cast<size_t>(r * cols + c)];
  return t;
}

void expectSameBits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  int64_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i) differing += bits(a[i]) != bits(b[i]) ? 1 : 0;
  EXPECT_EQ(differing, 0) << what;
}

struct Shape {
  int64_t rows, cols;
};
// Whole blocks, a short last block along each dimension, a single short block, one row.
const Shape kShapes[] = {{64, 128}, {37, 70}, {40, 20}, {6, 33}, {1, 5}};

TEST(BlockQuantizer, MxRowBlocksEqualTheBlockByBlockReference) {
  for (const Shape& shape : kShapes) {
    for (QuantFormat format : {QuantFormat::E4M3, QuantFormat::E2M1}) {
      for (bool specials : {false, true}) {
        if (specials && shape.rows < 6) continue;
        const auto in = testMatrix(shape.rows, shape.cols, 7u + static_cast<uint32_t>(shape.cols), specials);
        QuantCounts refCounts, counts;
        BlockStats refStats, stats;
        const auto expected = referenceMx(in, shape.rows, shape.cols, 32, format, &refCounts, &refStats);
        std::vector<float> out(in.size());
        quantizeMxBlocks(in.data(), out.data(), shape.rows, shape.cols, 32, format, &counts, &stats);
        expectSameBits(out, expected, "mx rows");
        EXPECT_EQ(counts.saturated, refCounts.saturated);
        EXPECT_EQ(counts.flushed, refCounts.flushed);
        EXPECT_EQ(stats.minExp, refStats.minExp);
        EXPECT_EQ(stats.maxExp, refStats.maxExp);
        EXPECT_EQ(bits(stats.tensorAmax), bits(absMax(in.data(), static_cast<int64_t>(in.size()))));
        // Without counts, the same values.
        std::vector<float> plain(in.size());
        quantizeMxBlocks(in.data(), plain.data(), shape.rows, shape.cols, 32, format, nullptr, nullptr);
        expectSameBits(plain, expected, "mx rows, no counts");
      }
    }
  }
}

TEST(BlockQuantizer, Nvfp4RowBlocksEqualTheBlockByBlockReference) {
  for (const Shape& shape : kShapes) {
    for (bool specials : {false, true}) {
      if (specials && shape.rows < 6) continue;
      auto in = testMatrix(shape.rows, shape.cols, 11u + static_cast<uint32_t>(shape.rows), false);
      if (specials) {
        // Blocks far below the tensor amax: their E4M3 block scale rounds to 0 and the block flushes.
        for (int64_t c = 0; c < shape.cols; ++c) in[static_cast<size_t>(2 * shape.cols + c)] *= 1e-9f;
        in[0] = 0.0f;
        in[1] = -0.0f;
      }
      QuantCounts refCounts, counts;
      BlockStats refStats, stats;
      const auto expected = referenceNvfp4(in, shape.rows, shape.cols, &refCounts, &refStats);
      std::vector<float> out(in.size());
      quantizeNvfp4Blocks(in.data(), out.data(), shape.rows, shape.cols, &counts, &stats);
      expectSameBits(out, expected, "nvfp4 rows");
      EXPECT_EQ(counts.saturated, refCounts.saturated);
      EXPECT_EQ(counts.flushed, refCounts.flushed);
      EXPECT_EQ(bits(stats.tensorScale), bits(refStats.tensorScale));
      EXPECT_EQ(stats.minExp, refStats.minExp);
      EXPECT_EQ(stats.maxExp, refStats.maxExp);
      if (specials) {
        EXPECT_GT(counts.flushed, 0);  // the scaled-down row did flush
      }
    }
  }
  // inf or NaN anywhere: all NaN.
  std::vector<float> bad(32, 1.0f), out(32);
  bad[20] = std::numeric_limits<float>::infinity();
  quantizeNvfp4Blocks(bad.data(), out.data(), 2, 16, nullptr, nullptr);
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(BlockQuantizer, ColumnBlocksEqualRowBlocksOfTheContiguousTranspose) {
  for (const Shape& shape : kShapes) {
    for (bool specials : {false, true}) {
      if (specials && shape.rows < 6) continue;
      const auto in = testMatrix(shape.rows, shape.cols, 23u + static_cast<uint32_t>(shape.cols), specials);
      const auto t = transposed(in, shape.rows, shape.cols);
      for (QuantFormat format : {QuantFormat::E4M3, QuantFormat::E2M1}) {
        std::vector<float> expected(in.size()), out(in.size());
        quantizeMxBlocks(t.data(), expected.data(), shape.cols, shape.rows, 32, format, nullptr, nullptr);
        quantizeMxColumnBlocks(in.data(), out.data(), shape.rows, shape.cols, 32, format);
        expectSameBits(out, expected, "mx columns");
      }
      std::vector<float> expected(in.size()), out(in.size());
      const auto finite = testMatrix(shape.rows, shape.cols, 29u + static_cast<uint32_t>(shape.rows), false);
      const auto& source = specials ? in : finite;  // with specials the NVFP4 tensor is all NaN
      const auto ts = transposed(source, shape.rows, shape.cols);
      quantizeNvfp4Blocks(ts.data(), expected.data(), shape.cols, shape.rows, nullptr, nullptr);
      quantizeNvfp4ColumnBlocks(source.data(), out.data(), shape.rows, shape.cols);
      expectSameBits(out, expected, "nvfp4 columns");
    }
  }
}

}  // namespace
}  // namespace ampscope::detail::fp8

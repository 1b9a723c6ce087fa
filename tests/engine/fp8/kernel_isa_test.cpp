// The quantiser loops' instruction-set variants (kernel_isa.h): under each variant this CPU runs,
// - the element quantiser over whole arrays (the vector loops) equals it one value at a time (the
//   scalar remainder), on random patterns and the special values: +-0, subnormals, the smallest
//   normal, the values at and next to each rounding tie, the largest finite value and just above it,
//   +-inf, NaN;
// - the element quantiser, absMax and every block pass (MX blocks of 32 and of 8, NVFP4, row and column
//   blocks, with and without counts) give the baseline variant's bits, counts and block statistics, on
//   matrices with zero, subnormal, inf and NaN blocks.
// The other fp8 tests run under whichever variant is selected; AMPSCOPE_KERNEL_ISA=baseline (or
// x86-64-v3) runs them under a narrower one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "fp8/block_quantizer.h"
#include "fp8/element_kernel.h"
#include "fp8/element_quantizer.h"
#include "kernel_isa.h"
#include "support/under_isa.h"

namespace ampscope::detail::fp8 {
namespace {

using kernel::bitsOf;
using kernel::floatOf;

// Restores the selected variant when a test is done.
class IsaScope {
 public:
  IsaScope() : saved_(kernelIsa()) {}
  ~IsaScope() { setKernelIsa(saved_); }

 private:
  KernelIsa saved_;
};


// The special values of a format, each with its neighbours 1 and 2 ulps away, both signs.
std::vector<float> specialValues(QuantFormat format) {
  const ElementSpec& spec = elementSpec(format);
  std::vector<float> centres = {0.0f, std::numeric_limits<float>::denorm_min(), 1e-40f,
                                std::numeric_limits<float>::min(), spec.minSubnormal, spec.minSubnormal / 2,
                                std::ldexp(1.0f, spec.minNormalExp), spec.maxValue,
                                std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity()};
  // Each representable value's upper midpoint (a tie), over the normal binades.
  const float ulp = std::ldexp(1.0f, -spec.mantissaBits);
  for (int e = spec.minNormalExp; e <= spec.maxExp; ++e) {
    for (int m = 0; m < (1 << spec.mantissaBits); ++m) {
      const float v = std::ldexp(1.0f + ulp * static_cast<float>(m), e);
      centres.push_back(v + std::ldexp(ulp, e) / 2);
    }
  }
  // Subnormal ties.
  for (int m = 0; m < (1 << spec.mantissaBits); ++m) centres.push_back(spec.minSubnormal * (m + 0.5f));
  std::vector<float> values;
  for (float c : centres) {
    for (int k = -2; k <= 2; ++k) {
      const int64_t b = static_cast<int64_t>(bitsOf(c)) + k;
      if (b < 0 || b > 0x7F800000) continue;
      values.push_back(floatOf(static_cast<uint32_t>(b)));
      values.push_back(-floatOf(static_cast<uint32_t>(b)));
    }
  }
  values.push_back(std::numeric_limits<float>::quiet_NaN());
  values.push_back(-std::numeric_limits<float>::quiet_NaN());
  values.push_back(floatOf(0x7F800001u));  // a signalling NaN pattern
  return values;
}

std::vector<float> randomPatterns(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = floatOf(rng());
  return v;
}

void expectSameBits(const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  int64_t differing = 0;
  size_t first = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (bitsOf(a[i]) != bitsOf(b[i])) {
      if (differing == 0) first = i;
      ++differing;
    }
  }
  EXPECT_EQ(differing, 0) << what << ": first at " << first;
}

TEST(KernelIsa, ArraysEqualTheQuantiserOneValueAtATime) {
  IsaScope scope;
  for (KernelIsa isa : support::isasOfThisCpu()) {
    ASSERT_TRUE(setKernelIsa(isa));
    for (QuantFormat format : {QuantFormat::E4M3, QuantFormat::E5M2, QuantFormat::E2M1}) {
      std::vector<float> in = specialValues(format);
      const auto random = randomPatterns(4099, 5u + static_cast<uint32_t>(format));
      in.insert(in.end(), random.begin(), random.end());
      for (const float scale : {1.0f, 3.0f, 0x1p-20f}) {
        const float invScale = 1.0f / scale;
        std::vector<float> whole(in.size()), counted(in.size()), single(in.size());
        quantize(in.data(), whole.data(), static_cast<int64_t>(in.size()), format, scale, invScale, nullptr);
        QuantCounts counts, singleCounts;
        quantize(in.data(), counted.data(), static_cast<int64_t>(in.size()), format, scale, invScale, &counts);
        for (size_t i = 0; i < in.size(); ++i) quantize(&in[i], &single[i], 1, format, scale, invScale, &singleCounts);
        const std::string what = std::string(kernelIsaName(isa)) + " format " +
                                 std::to_string(static_cast<int>(format)) + " scale " + std::to_string(scale);
        expectSameBits(whole, single, what);
        expectSameBits(counted, single, what + " counted");
        EXPECT_EQ(counts.saturated, singleCounts.saturated) << what;
        EXPECT_EQ(counts.flushed, singleCounts.flushed) << what;
        EXPECT_GT(counts.saturated, 0) << what;
        EXPECT_EQ(bitsOf(absMax(in.data(), static_cast<int64_t>(in.size()))),
                  bitsOf(std::numeric_limits<float>::quiet_NaN()))
            << what;
      }
    }
  }
}

// Everything the block passes produce for one input, to compare between variants.
struct BlockResults {
  std::vector<std::vector<float>> outputs;
  std::vector<int64_t> numbers;  // counts, block exponents, tensor scale and amax bits
};

void addStats(BlockResults& r, const QuantCounts& c, const BlockStats& s) {
  r.numbers.insert(r.numbers.end(), {c.saturated, c.flushed, s.minExp, s.maxExp, s.anyBlock ? 1 : 0,
                                     bitsOf(s.tensorScale), bitsOf(s.tensorAmax)});
}

BlockResults runBlockPasses(const std::vector<float>& in, int64_t rows, int64_t cols) {
  BlockResults r;
  const auto n = in.size();
  for (QuantFormat format : {QuantFormat::E4M3, QuantFormat::E2M1}) {
    for (int64_t block : {int64_t{32}, int64_t{8}}) {
      std::vector<float> out(n), plain(n), cols32(n);
      QuantCounts c;
      BlockStats s;
      quantizeMxBlocks(in.data(), out.data(), rows, cols, block, format, &c, &s);
      quantizeMxBlocks(in.data(), plain.data(), rows, cols, block, format, nullptr, nullptr);
      quantizeMxColumnBlocks(in.data(), cols32.data(), rows, cols, block, format);
      r.outputs.insert(r.outputs.end(), {out, plain, cols32});
      addStats(r, c, s);
    }
  }
  std::vector<float> out(n), plain(n), colsOut(n);
  QuantCounts c;
  BlockStats s;
  quantizeNvfp4Blocks(in.data(), out.data(), rows, cols, &c, &s);
  quantizeNvfp4Blocks(in.data(), plain.data(), rows, cols, nullptr, nullptr);
  quantizeNvfp4ColumnBlocks(in.data(), colsOut.data(), rows, cols);
  r.outputs.insert(r.outputs.end(), {out, plain, colsOut});
  addStats(r, c, s);
  std::vector<float> e(n);
  QuantCounts ec;
  quantize(in.data(), e.data(), static_cast<int64_t>(n), QuantFormat::E5M2, 5.0f, 0.2f, &ec);
  r.outputs.push_back(e);
  r.numbers.insert(r.numbers.end(), {ec.saturated, ec.flushed, bitsOf(absMax(in.data(), static_cast<int64_t>(n)))});
  return r;
}

std::vector<float> blockMatrix(int64_t rows, int64_t cols, uint32_t seed, bool specials) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> binade(-60, 60);
  std::vector<float> m(static_cast<size_t>(rows * cols));
  for (auto& v : m) v = std::ldexp(normal(rng), binade(rng) / 3);
  auto at = [&](int64_t r, int64_t c) -> float& { return m[static_cast<size_t>(r * cols + c)]; };
  for (int64_t c = 0; c < cols; ++c) at(0, c) = c % 3 == 0 ? -0.0f : 0.0f;      // zero blocks
  for (int64_t c = 0; c < cols; ++c) at(1, c) = std::ldexp(normal(rng), -140);  // subnormal blocks
  for (int64_t c = 0; c < cols; ++c) at(2, c) *= 1e-12f;  // NVFP4 block scales that round to 0
  if (!specials) return m;
  at(3, 5) = std::numeric_limits<float>::infinity();
  at(4, cols - 1) = std::numeric_limits<float>::quiet_NaN();
  at(5, 7) = -3e38f;
  for (int64_t r = 0; r < rows; ++r) at(r, 2) = std::numeric_limits<float>::infinity();  // an inf column
  return m;
}

TEST(KernelIsa, EveryVariantGivesTheBaselineBits) {
  IsaScope scope;
  struct Shape {
    int64_t rows, cols;
  };
  for (const Shape shape : {Shape{64, 512}, Shape{70, 100}, Shape{33, 48}, Shape{8, 17}}) {
    for (bool specials : {false, true}) {
      const auto in = blockMatrix(shape.rows, shape.cols, 41u + static_cast<uint32_t>(shape.cols), specials);
      ASSERT_TRUE(setKernelIsa(KernelIsa::Baseline));
      const BlockResults base = runBlockPasses(in, shape.rows, shape.cols);
      for (KernelIsa isa : support::isasOfThisCpu()) {
        ASSERT_TRUE(setKernelIsa(isa));
        const BlockResults got = runBlockPasses(in, shape.rows, shape.cols);
        const std::string what = std::string(kernelIsaName(isa)) + " " + std::to_string(shape.rows) + "x" +
                                 std::to_string(shape.cols) + (specials ? " specials" : "");
        ASSERT_EQ(got.outputs.size(), base.outputs.size());
        for (size_t i = 0; i < got.outputs.size(); ++i) {
          expectSameBits(got.outputs[i], base.outputs[i], what + " output " + std::to_string(i));
        }
        EXPECT_EQ(got.numbers, base.numbers) << what;
      }
    }
  }
  std::printf("variants checked: %zu, best %s\n", support::isasOfThisCpu().size(), kernelIsaName(bestKernelIsa()));
}

TEST(KernelIsa, SelectionRefusesWhatTheCpuLacks) {
  IsaScope scope;
  EXPECT_TRUE(setKernelIsa(KernelIsa::Baseline));
  EXPECT_EQ(kernelIsa(), KernelIsa::Baseline);
  EXPECT_TRUE(setKernelIsa(bestKernelIsa()));
  EXPECT_EQ(kernelIsa(), bestKernelIsa());
  if (bestKernelIsa() != KernelIsa::X86_64_V4) {
    EXPECT_FALSE(setKernelIsa(KernelIsa::X86_64_V4));
    EXPECT_EQ(kernelIsa(), bestKernelIsa());
  }
}

}  // namespace
}  // namespace ampscope::detail::fp8

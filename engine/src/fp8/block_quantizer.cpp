#include "fp8/block_quantizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fp8/scaling.h"

namespace ampscope::detail::fp8 {
namespace {

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

void fillNaN(float* out, int64_t n) {
  std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
}

}  // namespace

void quantizeMxBlocks(const float* in, float* out, int64_t rows, int64_t cols, int64_t blockSize,
                      QuantFormat element, QuantCounts* counts, BlockStats* stats) {
  const int elementMaxExp = elementSpec(element).maxExp;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; c += blockSize) {
      const int64_t n = std::min(blockSize, cols - c);
      const float* src = in + r * cols + c;
      float* dst = out + r * cols + c;
      const float amax = absMax(src, n);
      if (!std::isfinite(amax)) {
        fillNaN(dst, n);
        continue;
      }
      const int x = mxSharedExponent(amax, elementMaxExp);
      if (amax > 0.0f) noteExponent(stats, x);
      // 2^-x and 2^x are exact float32 values for x in [-127, 127] (2^-127 as a subnormal).
      quantize(src, dst, n, element, std::ldexp(1.0f, -x), std::ldexp(1.0f, x), counts);
    }
  }
}

void quantizeNvfp4Blocks(const float* in, float* out, int64_t rows, int64_t cols, QuantCounts* counts,
                         BlockStats* stats) {
  constexpr int64_t kBlock = 16;
  const float fp4Max = elementSpec(QuantFormat::E2M1).maxValue;
  const float fp8Max = elementSpec(QuantFormat::E4M3).maxValue;
  const float tensorAmax = absMax(in, rows * cols);
  if (!std::isfinite(tensorAmax)) {
    fillNaN(out, rows * cols);
    return;
  }
  // The tensor scale maps the tensor's amax onto the largest E4M3 block scale times the largest E2M1
  // element; an all-zero tensor keeps 1.
  float tensorScale = tensorAmax > 0.0f ? (fp8Max * fp4Max) / tensorAmax : 1.0f;
  if (std::isinf(tensorScale)) tensorScale = std::numeric_limits<float>::max();
  if (stats) stats->tensorScale = tensorScale;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; c += kBlock) {
      const int64_t n = std::min(kBlock, cols - c);
      const float* src = in + r * cols + c;
      float* dst = out + r * cols + c;
      const float amax = absMax(src, n);
      const float blockScale = quantizeValue((amax / fp4Max) * tensorScale, QuantFormat::E4M3);
      if (blockScale == 0.0f) {
        // Too small for E4M3's smallest subnormal: the whole block flushes.
        QuantCounts local;
        for (int64_t i = 0; i < n; ++i) {
          local.flushed += src[i] != 0.0f ? 1 : 0;
          dst[i] = 0.0f * src[i];  // keeps the sign of zero
        }
        if (counts) counts->flushed += local.flushed;
        continue;
      }
      const float decode = blockScale / tensorScale;
      noteExponent(stats, std::ilogb(decode));
      quantize(src, dst, n, QuantFormat::E2M1, tensorScale / blockScale, decode, counts);
    }
  }
}

}  // namespace ampscope::detail::fp8

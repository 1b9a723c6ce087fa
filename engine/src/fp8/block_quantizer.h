// Block scaling of a row-major [rows, cols] float32 matrix, blocks of `blockSize` consecutive values of
// a row (the reduction dimension of the GEMM that consumes it; a last shorter block is allowed):
// MXFP8 (E8M0 power-of-two scales, scaling.h) and NVFP4 (E4M3 block scales times an FP32 tensor scale).
// The output holds the dequantised values (element * block decode factor), in float32.
#pragma once

#include <cstdint>

#include "fp8/element_quantizer.h"

namespace ampscope::detail::fp8 {

struct BlockStats {
  float tensorScale = 1;  // NVFP4's FP32 tensor scale; 1 for MX
  int minExp = 0;         // floor(log2) of the smallest / largest block decode factor (non-zero blocks)
  int maxExp = 0;
  bool anyBlock = false;
};

// A block holding inf or NaN becomes NaN throughout (the MX spec's NaN scale).
void quantizeMxBlocks(const float* in, float* out, int64_t rows, int64_t cols, int64_t blockSize,
                      QuantFormat element, QuantCounts* counts, BlockStats* stats);
void quantizeNvfp4Blocks(const float* in, float* out, int64_t rows, int64_t cols, QuantCounts* counts,
                         BlockStats* stats);

}  // namespace ampscope::detail::fp8

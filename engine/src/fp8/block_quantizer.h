// Block scaling of a row-major [rows, cols] float32 matrix: MXFP8 (E8M0 power-of-two scales, scaling.h)
// and NVFP4 (E4M3 block scales times an FP32 tensor scale). The output holds the dequantised values
// (element * block decode factor), in float32.
// - Row blocks: `blockSize` consecutive values of a row (the reduction dimension of the forward GEMM
//   x W^T; a last shorter block is allowed); the output has the input's layout.
// - Column blocks: `blockSize` consecutive values of a column (the reduction dimension of a backward GEMM
//   that reads the matrix transposed), written transposed: out is [cols, rows] row-major, the layout
//   of quantising the rows of the contiguous transpose, in one pass without that transposed copy.
// Each pass reads its input once (NVFP4 twice: the tensor scale needs the tensor's amax first) and runs
// element_kernel.h's rounding inside the block loop, so each block costs no call of its own.
#pragma once

#include <cstdint>

#include "fp8/element_quantizer.h"

namespace ampscope::detail::fp8 {

struct BlockStats {
  float tensorScale = 1;  // NVFP4's FP32 tensor scale; 1 for MX
  float tensorAmax = 0;   // max |x| over the whole matrix (NaN if any element is NaN), as absMax
  int minExp = 0;         // floor(log2) of the smallest / largest block decode factor (non-zero blocks)
  int maxExp = 0;
  bool anyBlock = false;
};

// A block holding inf or NaN becomes NaN throughout (the MX spec's NaN scale). counts and stats may be
// null.
void quantizeMxBlocks(const float* in, float* out, int64_t rows, int64_t cols, int64_t blockSize,
                      QuantFormat element, QuantCounts* counts, BlockStats* stats);
// NVFP4 blocks of 16; a tensor holding inf or NaN becomes NaN throughout.
void quantizeNvfp4Blocks(const float* in, float* out, int64_t rows, int64_t cols, QuantCounts* counts,
                         BlockStats* stats);

// Column blocks, no statistics: outT[c * rows + r] is element (r, c) quantised with the block of
// rows [r - r % blockSize, ...) of column c.
void quantizeMxColumnBlocks(const float* in, float* outT, int64_t rows, int64_t cols, int64_t blockSize,
                            QuantFormat element);
void quantizeNvfp4ColumnBlocks(const float* in, float* outT, int64_t rows, int64_t cols);

}  // namespace ampscope::detail::fp8

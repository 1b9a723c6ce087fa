// y = x W^T + b with both GEMM inputs quantised by a RecipeQuantizer, as an FP8 GEMM computes it:
// the quantised values (dequantised: element / scale) are multiplied and accumulated in float32.
// Backward quantises the incoming gradient (E5M2 in the per-tensor recipes) and multiplies it with the
// saved quantised x and W; the block recipes re-quantise x, W and the gradient with blocks along the
// backward GEMMs' own reduction dimension, as MXFP8 hardware needs. The bias and its gradient stay FP32.
#pragma once

#include <torch/torch.h>

#include <string>

#include "fp8/recipe_quantizer.h"

namespace ampscope::detail::fp8 {

// x: [..., K] float32, weight [O, K], bias [O] or undefined. `quantizer` must outlive the backward pass.
torch::Tensor quantizedLinear(RecipeQuantizer& quantizer, const std::string& layer, const torch::Tensor& x,
                              const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace ampscope::detail::fp8

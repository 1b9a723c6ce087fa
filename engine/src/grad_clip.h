// torch.nn.utils.clip_grad_norm_ (norm_type 2, error_if_nonfinite=False) as PyTorch 1.13 computes it.
//
// The total norm is computed in the gradients' dtype with PyTorch's own reductions, as torch does:
// the 2-norm of each gradient, then the 2-norm of those norms stacked (so float32 for float32
// gradients). clip_coef = maxNorm / (total + 1e-6), clamped to at most 1, and EVERY gradient is
// multiplied by it (no "if coef < 1" branch, as in torch): a coefficient of exactly 1 leaves them as
// they are. A non-finite total is not an error: an inf total gives coef 0 (finite entries become 0,
// inf entries NaN), a NaN total gives coef NaN (every gradient becomes NaN), exactly like torch 1.13.
// Parameters without a gradient are skipped; with none at all the norm is 0 and nothing changes.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace ampscope::detail {

// Clips in place; returns the total norm BEFORE clipping.
double clipGradNorm(const std::vector<torch::Tensor>& parameters, double maxNorm);
// The same total norm, without touching the gradients.
double gradNorm(const std::vector<torch::Tensor>& parameters);

}  // namespace ampscope::detail

// RecipeQuantizer: one mode's FP8/microscaling recipe applied to named GEMM operands, with the scaling
// state each tensor keeps between steps (the amax history of delayed scaling) and this step's
// QuantTensorStats. Which format each operand gets and where a recipe keeps higher precision:
// docs/fp8-recipes.md.
#pragma once

#include <torch/torch.h>

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "fp8/scaling.h"

namespace ampscope::detail::fp8 {

enum class Recipe { Delayed, Current, MxBlock, Nvfp4Block };

class RecipeQuantizer {
 public:
  RecipeQuantizer(Recipe recipe, const Fp8Config& settings);

  Recipe recipe() const { return recipe_; }
  bool perTensor() const { return recipe_ == Recipe::Delayed || recipe_ == Recipe::Current; }
  QuantFormat forwardFormat() const;   // E4M3 (E2M1 for NVFP4)
  QuantFormat backwardFormat() const;  // E5M2 for the per-tensor recipes (HYBRID), else as forward

  void beginPass(bool instrument) { instrument_ = instrument; }
  // Quantises and dequantises x (float32, any shape; blocks run along its last dimension) as the
  // operand `name` of `layer`, recording its statistics for this step.
  torch::Tensor quantize(const torch::Tensor& x, const std::string& name, const std::string& layer,
                         bool backward);
  // Block recipes only: the same values quantised with blocks along dimension 0 (the reduction
  // dimension of the backward GEMMs that read a tensor transposed); no statistics.
  torch::Tensor quantizeColumns(const torch::Tensor& x2d, bool backward) const;

  // The optimizer step is done: delayed scaling pushes this step's amaxes into the histories and
  // computes the next step's scales. Returns this step's statistics, in first-use order.
  std::vector<QuantTensorStats> endStep();

 private:
  struct TensorState {
    QuantTensorStats stats;
    AmaxHistory history;
    float scale = 1.0f;        // delayed: the scale the next use takes
    float stepAmax = 0.0f;     // the largest amax of this step's uses (a tensor may be used twice)
    bool used = false;
  };
  TensorState& state(const std::string& name, const std::string& layer, bool backward);

  Recipe recipe_;
  Fp8Config settings_;
  bool instrument_ = false;
  std::deque<TensorState> states_;  // stable addresses
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ampscope::detail::fp8

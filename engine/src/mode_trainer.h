// ModeTrainer: one precision mode of a comparison: its own copy of the model (cast per mode), its
// optimizer, its GradScaler (fp16-amp-scaled; fp16-pure when configured), its PrecisionContext, and
// the training step that produces a ModeStep. Single-threaded: the comparison's thread owns it.
//
// The step, in PyTorch terms (the chapter's order):
//   zero_grad(set_to_none) ; with autocast: logits = model(x); loss = cross_entropy(logits, y)
//   (loss * lossWeight) [* scale] .backward()
//   [scaler.unscale_(opt)] ; [clip_grad_norm_] ; scaler.step(opt) | opt.step() ; [scaler.update()]
// Emulated pure modes (fp16-pure on CPU) use torch.optim's update with every in-place op rounded to
// FP16, as model.half() runs it, so parameters and optimizer state stay FP16 values and an update below
// half an ulp of a weight is lost.
//
// Parameters, gradients and optimizer state live in flat buffers (flat_parameters.h); for float32
// parameters the optimizer is FusedAdamW / FusedSgd (fused_optimizer.h): one pass over the buffers,
// bit-identical to torch::optim (and to RoundedAdamW / RoundedSgd in the emulated pure modes). Other
// dtypes (bf16-pure) keep torch::optim on the flat buffers' views.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "flat_parameters.h"
#include "grad_scaler.h"
#include "models/mlp_direct_pass.h"
#include "models/model.h"
#include "precision_context.h"
#include "synthetic_data.h"

namespace ampscope::detail {

class ModeTrainer {
 public:
  // Copies the reference model's parameters (so every mode starts from the same weights).
  ModeTrainer(const RunConfig& config, const ModeCapability& capability, Model& reference);

  PrecisionMode mode() const { return mode_; }
  bool diverged() const { return diverged_; }
  // Whether an MLP's FP32 steps may skip autograd (models/mlp_direct_pass.h; on by default). Off runs
  // every step under autograd: the tests compare the two step for step.
  void allowDirectPass(bool allowed) { directAllowed_ = allowed; }
  // injectInf: after backward, +inf goes into the first element of the first gradient.
  ModeStep step(int64_t stepIndex, const Batch& batch, bool instrument, bool injectInf);
  std::vector<OpDtypeEntry> opDtypeReport(const Batch& batch);
  const MemoryLedger& memoryLedger() const { return ledger_; }

  Model& model() { return *model_; }
  PrecisionContext& context() { return context_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  const std::vector<std::pair<std::string, torch::Tensor>>& namedParameters() const { return named_; }

 private:
  torch::Tensor forwardLoss(const Batch& batch);
  std::vector<torch::Tensor> optimizerStateTensors();
  int64_t optimizerStateBytes();
  bool parametersFinite() const;
  bool parametersFiniteAfterStep() const;

  RunConfig config_;
  PrecisionMode mode_;
  PrecisionContext context_;
  std::shared_ptr<Model> model_;
  // The MLPs' pass without autograd in FP32 and the emulated modes (models/mlp_direct_pass.h); null
  // for other models.
  std::unique_ptr<MlpDirectPass> directPass_;
  bool directAllowed_ = true;
  std::vector<std::pair<std::string, torch::Tensor>> named_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<FlatParameters> flat_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  // The fused optimizer, when optimizer_ is one; it reports whether the parameters stayed finite.
  std::function<bool()> fusedFinite_;
  // Points the rounded optimizer's update counts at updateCounts_ on instrumented steps, elsewhere at
  // nothing (no one reads them then); empty for the optimizers that do not round.
  std::function<void(RoundingCounts*)> countUpdates_;
  size_t stateEntries_ = 0;
  int64_t optimizerStateBytes_ = -1;  // -1: not measured since the state last changed
  std::unique_ptr<GradScaler> scaler_;
  LowFormat histogramTarget_;
  int64_t parameterBytes_ = 0;
  bool diverged_ = false;
  RoundingCounts updateCounts_;  // the stored-update rounding of the emulated pure modes
  // Pure emulated modes: per parameter, where the rounding of its gradient is counted this step.
  std::vector<RoundingCounts*> gradientCounts_;
  // A scaled step's unscale: its spans of the flat gradients and, without a clip, their sums of squares
  // (kept between steps so that a step allocates neither).
  std::vector<GradScaler::Span> unscaleSpans_;
  std::vector<double> unscaledSquares_;
  MemoryLedger ledger_;
};

}  // namespace ampscope::detail

// torch.amp.GradScaler in C++ (LibTorch 1.13's C++ API has none), with PyTorch's semantics:
// the same defaults, the per-optimizer READY -> UNSCALED -> STEPPED state machine and its errors,
// found_inf per optimizer (NaN counts as inf), the skipped optimizer step, and the scale update.
//
// The scale is kept with float32 semantics, as PyTorch keeps it in a float32 tensor: update() computes
// the grown/backed-off scale and rounds it to float32, and growth that would reach inf in float32 is
// refused (the scale stays, the tracker still resets), exactly as PyTorch's _amp_update_scale_ kernel
// does. So a scale of 2^127 stays 2^127 instead of becoming inf.
//
// unscale_() multiplies every gradient by the float32 reciprocal of the scale (1/scale computed in
// float64, then rounded to float32), which is what PyTorch's _amp_foreach_non_finite_check_and_unscale_
// does; for power-of-two scales that equals dividing. found_inf is decided on the gradients as they
// were before unscaling. On CPU the check is a plain loop (the _amp_foreach kernels have no CPU kernel
// in 1.13); CUDA gradients go through PyTorch's own kernel.
//
// Not thread-safe: one scaler belongs to one training thread, like the optimizer it serves.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ampscope/engine/run_config.h"

namespace ampscope::detail {

class GradScaler {
 public:
  enum class OptState { Ready, Unscaled, Stepped };

  // Throws std::invalid_argument when enabled and growthFactor <= 1, backoffFactor not in (0, 1),
  // growthInterval < 1 or initScale not finite and > 0 (PyTorch asserts the first two).
  explicit GradScaler(const ScalerConfig& config);
  // allowFp16: PyTorch's public unscale_() refuses FP16 gradients ("Attempting to unscale FP16
  // gradients."); its internal _unscale_grads_(..., allow_fp16=True) accepts them. Pass true for a
  // model.half() run that deliberately uses a scaler.
  GradScaler(const ScalerConfig& config, bool allowFp16);

  bool isEnabled() const;
  void setAllowFp16(bool allow);
  bool allowFp16() const;

  // loss * scale, the scale as a float32 0-dim tensor (PyTorch's type promotion: an FP16 loss stays FP16).
  // Returns the loss unchanged when disabled.
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Multiplies the optimizer's gradients by 1/scale in place and records found_inf for it.
  // Throws std::logic_error when called twice for the same optimizer since the last update(), or after
  // step(); std::invalid_argument for FP16 gradients unless allowFp16.
  void unscale_(torch::optim::Optimizer& optimizer);
  // unscale_() over gradients that lie in one float32 buffer: `spans` are the [offset, offset + numel)
  // element ranges of every defined gradient of `optimizer` in `data`. One pass, the same semantics
  // (found_inf from the values before unscaling, invScale 1 leaves the bits alone) and the same errors.
  struct Span {
    int64_t offset = 0;
    int64_t numel = 0;
  };
  // With `squares`, each span's sum of the squares of its unscaled values is appended to it, summed in
  // the same pass (sum_of_squares.h: the sum sumOfSquares would give over the span afterwards).
  void unscaleFlat_(torch::optim::Optimizer& optimizer, float* data, const std::vector<Span>& spans,
                    std::vector<double>* squares = nullptr);
  // Unscales first if unscale_() was not called, then runs optimizer.step() unless a gradient was
  // inf/NaN. Returns true if the optimizer stepped. Throws std::logic_error when called twice without
  // update(). Disabled: just steps.
  bool step(torch::optim::Optimizer& optimizer);
  // Without an argument: backoff (scale *= backoffFactor, tracker = 0) if any optimizer recorded
  // found_inf since the last update, else tracker += 1 and growth at growthInterval. Throws
  // std::logic_error if no inf check was recorded (PyTorch: "No inf checks were recorded prior to
  // update."). With newScale: the scale becomes float32(newScale), the tracker is left alone.
  // Either way every optimizer returns to Ready. Disabled: no-op.
  void update(std::optional<double> newScale = std::nullopt);

  double getScale() const;  // 1.0 when disabled, as PyTorch's get_scale()
  int64_t growthTracker() const;
  // Whether any inf/NaN was found since the last update(); right after update() (no check recorded
  // since), whether the checks that update() consumed found one. False when disabled.
  bool foundInfLastStep() const;
  OptState state(const torch::optim::Optimizer& optimizer) const;

  struct State {
    double scale;
    double growthFactor;
    double backoffFactor;
    int64_t growthInterval;
    int64_t growthTracker;
    bool enabled;
  };
  State stateDict() const;
  // Throws std::invalid_argument when this scaler is enabled and the state came from a disabled one
  // (PyTorch: "The source state dict is empty, possibly because it was saved from a disabled
  // instance of GradScaler."). No-op when this scaler is disabled.
  void loadStateDict(const State& state);

 private:
  struct PerOptimizer {
    OptState stage = OptState::Ready;
    bool infChecked = false;
    bool foundInf = false;
  };
  PerOptimizer& perOptimizer(const torch::optim::Optimizer& optimizer);
  // The state checks unscale_() starts with; returns the optimizer's state.
  PerOptimizer& checkUnscalable(const torch::optim::Optimizer& optimizer);
  // PyTorch takes the reciprocal in float64 and rounds it to float32.
  float inverseScale() const;

  float scale_;
  double growthFactor_;
  double backoffFactor_;
  int64_t growthInterval_;
  int64_t growthTracker_ = 0;
  bool enabled_;
  bool allowFp16_ = false;
  bool lastUpdateFoundInf_ = false;
  // Keyed by the optimizer's address, as PyTorch keys by id(optimizer); cleared by update().
  std::unordered_map<const torch::optim::Optimizer*, PerOptimizer> perOptimizer_;
};

}  // namespace ampscope::detail

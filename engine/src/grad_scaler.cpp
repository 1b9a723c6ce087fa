#include "grad_scaler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernel_isa.h"
#include "sum_of_squares.h"

namespace ampscope::detail {
namespace {

void validateScalerConfig(double initScale, double growthFactor, double backoffFactor,
                          int64_t growthInterval) {
  // PyTorch asserts the first two in GradScaler.__init__; the others would make update() meaningless.
  if (!(growthFactor > 1.0) || !std::isfinite(growthFactor)) {
    throw std::invalid_argument("GradScaler: the growth factor must be > 1.0 and finite, got " +
                                std::to_string(growthFactor));
  }
  if (!(backoffFactor > 0.0 && backoffFactor < 1.0)) {
    throw std::invalid_argument("GradScaler: the backoff factor must be in (0, 1), got " +
                                std::to_string(backoffFactor));
  }
  if (growthInterval < 1) {
    throw std::invalid_argument("GradScaler: the growth interval must be >= 1, got " +
                                std::to_string(growthInterval));
  }
  const float asFloat = static_cast<float>(initScale);
  if (!(asFloat > 0.0f) || !std::isfinite(asFloat)) {
    throw std::invalid_argument("GradScaler: the scale must be finite and > 0 in float32, got " +
                                std::to_string(initScale));
  }
}

// In-place grad *= invScale over a contiguous CPU buffer; returns whether any input was inf/NaN.
// The check looks at the value before unscaling, as PyTorch's kernel does, and an invScale of exactly
// 1 leaves values bit-identical (the kernel special-cases it too). Inf and NaN are the values whose
// exponent field is all ones; an integer max over the masked bits has no branch and vectorizes.
template <typename T, typename Bits, Bits kExponentMask>
bool unscaleContiguous(T* data, int64_t n, float invScale) {
  static_assert(sizeof(T) == sizeof(Bits), "bit view of the same width");
  const T factor = static_cast<T>(invScale);
  Bits maxExponent = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T v = data[i];
    Bits bits;
    std::memcpy(&bits, &v, sizeof bits);
    maxExponent = std::max<Bits>(maxExponent, bits & kExponentMask);
    if (invScale != 1.0f) data[i] = v * factor;
  }
  return maxExponent == kExponentMask;
}

// The float32 case, the one every mode's flat gradient buffer takes: two branch-free loops (check only,
// check and multiply), compiled per kernelIsa() (kernel_isa.h). The generic loop above keeps the multiply
// behind a branch inside the loop and an unsigned max, which SSE2 lacks: it ran scalar, 0.7 ns a value.
// Same values bit for bit: one float32 multiply per element either way.
AMPSCOPE_ALWAYS_INLINE bool unscaleFloat32Body(float* __restrict data, int64_t n, float invScale) {
  uint32_t maxExponent = 0;
  if (invScale == 1.0f) {
    for (int64_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &data[i], sizeof bits);
      maxExponent = std::max(maxExponent, bits & 0x7f800000u);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const float v = data[i];
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      maxExponent = std::max(maxExponent, bits & 0x7f800000u);
      data[i] = v * invScale;
    }
  }
  return maxExponent == 0x7f800000u;
}
AMPSCOPE_ISA_DISPATCH(bool, unscaleFloat32, (float* __restrict data, int64_t n, float invScale), (data, n, invScale))

// Portable check-and-unscale for one CPU gradient; returns found_inf for it.
bool unscaleCpuGrad(torch::Tensor& grad, float invScale) {
  if (grad.is_contiguous() && grad.scalar_type() == torch::kFloat) {
    return unscaleFloat32(grad.data_ptr<float>(), grad.numel(), invScale);
  }
  if (grad.is_contiguous() && grad.scalar_type() == torch::kDouble) {
    return unscaleContiguous<double, uint64_t, 0x7ff0000000000000u>(grad.data_ptr<double>(), grad.numel(),
                                                                   invScale);
  }
  // FP16/BF16 or strided: torch ops. The 0-dim float32 multiplier is read in float arithmetic and the
  // product rounded once to the gradient's dtype, like the kernel's opmath computation.
  const bool nonFinite = !torch::isfinite(grad).all().item<bool>();
  if (invScale != 1.0f) grad.mul_(torch::scalar_tensor(invScale, grad.options().dtype(torch::kFloat)));
  return nonFinite;
}

}  // namespace

GradScaler::GradScaler(const ScalerConfig& config) : GradScaler(config, /*allowFp16=*/false) {}

GradScaler::GradScaler(const ScalerConfig& config, bool allowFp16)
    : scale_(static_cast<float>(config.initScale)),
      growthFactor_(config.growthFactor),
      backoffFactor_(config.backoffFactor),
      growthInterval_(config.growthInterval),
      enabled_(config.enabled),
      allowFp16_(allowFp16) {
  if (enabled_) {
    validateScalerConfig(config.initScale, config.growthFactor, config.backoffFactor,
                         config.growthInterval);
  }
}

bool GradScaler::isEnabled() const { return enabled_; }
void GradScaler::setAllowFp16(bool allow) { allowFp16_ = allow; }
bool GradScaler::allowFp16() const { return allowFp16_; }

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
  if (!enabled_) return loss;
  return loss * torch::scalar_tensor(scale_, loss.options().dtype(torch::kFloat));
}

GradScaler::PerOptimizer& GradScaler::perOptimizer(const torch::optim::Optimizer& optimizer) {
  return perOptimizer_[&optimizer];
}

GradScaler::PerOptimizer& GradScaler::checkUnscalable(const torch::optim::Optimizer& optimizer) {
  PerOptimizer& state = perOptimizer(optimizer);
  if (state.stage == OptState::Unscaled) {
    throw std::logic_error("unscale_() has already been called on this optimizer since the last update().");
  }
  if (state.stage == OptState::Stepped) {
    throw std::logic_error("unscale_() is being called after step().");
  }
  return state;
}

// FP32 division can be imprecise under some compile options; the float64 reciprocal is exact enough.
float GradScaler::inverseScale() const { return static_cast<float>(1.0 / static_cast<double>(scale_)); }

void GradScaler::unscaleFlat_(torch::optim::Optimizer& optimizer, float* data, const std::vector<Span>& spans,
                              std::vector<double>* squares) {
  if (!enabled_) return;
  PerOptimizer& state = checkUnscalable(optimizer);
  const float invScale = inverseScale();
  bool foundInf = false;
  for (const Span& span : spans) {
    if (squares != nullptr) {
      uint32_t inputExponent = 0;
      squares->push_back(unscaleWithSumOfSquares(data + span.offset, span.numel, invScale, &inputExponent));
      foundInf |= inputExponent == 0x7F800000u;
    } else {
      foundInf |= unscaleFloat32(data + span.offset, span.numel, invScale);
    }
  }
  state.infChecked = true;
  state.foundInf = foundInf;
  state.stage = OptState::Unscaled;
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!enabled_) return;
  PerOptimizer& state = checkUnscalable(optimizer);
  const float invScale = inverseScale();
  std::vector<torch::Tensor> grads;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& param : group.params()) {
      const torch::Tensor& grad = param.grad();
      if (!grad.defined()) continue;
      if (!allowFp16_ && grad.scalar_type() == torch::kHalf) {
        throw std::invalid_argument("Attempting to unscale FP16 gradients.");
      }
      if (grad.is_sparse()) {
        throw std::invalid_argument("GradScaler: sparse gradients are not supported.");
      }
      grads.push_back(grad);
    }
  }

  torch::NoGradGuard noGrad;
  bool foundInf = false;
  // Where the backend has the fused kernel (CUDA), use it per device and dtype as PyTorch does.
  std::map<std::pair<std::string, int>, std::vector<torch::Tensor>> deviceGroups;
  for (auto& grad : grads) {
    if (grad.device().is_cpu()) {
      foundInf |= unscaleCpuGrad(grad, invScale);
    } else {
      deviceGroups[{grad.device().str(), static_cast<int>(grad.scalar_type())}].push_back(grad);
    }
  }
  for (auto& [key, group] : deviceGroups) {
    const auto options = torch::TensorOptions().device(group.front().device()).dtype(torch::kFloat);
    torch::Tensor foundInfTensor = torch::zeros({1}, options);
    torch::Tensor invScaleTensor = torch::full({1}, invScale, options);
    at::_amp_foreach_non_finite_check_and_unscale_(group, foundInfTensor, invScaleTensor);
    foundInf |= foundInfTensor.item<float>() > 0.0f;
  }

  state.infChecked = true;
  state.foundInf = foundInf;
  state.stage = OptState::Unscaled;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!enabled_) {
    optimizer.step();
    return true;
  }
  PerOptimizer& state = perOptimizer(optimizer);
  if (state.stage == OptState::Stepped) {
    throw std::logic_error("step() has already been called since the last update().");
  }
  if (state.stage == OptState::Ready) unscale_(optimizer);  // references into the map stay valid
  const bool doStep = !state.foundInf;
  if (doStep) optimizer.step();
  state.stage = OptState::Stepped;
  return doStep;
}

void GradScaler::update(std::optional<double> newScale) {
  if (!enabled_) return;
  if (newScale) {
    const float asFloat = static_cast<float>(*newScale);
    if (!(asFloat > 0.0f) || !std::isfinite(asFloat)) {
      throw std::invalid_argument("GradScaler::update: the new scale must be finite and > 0 in float32, got " +
                                  std::to_string(*newScale));
    }
    scale_ = asFloat;
    bool anyInf = false;
    for (const auto& entry : perOptimizer_) anyInf |= entry.second.foundInf;
    lastUpdateFoundInf_ = anyInf;
  } else {
    bool anyChecked = false;
    bool anyInf = false;
    for (const auto& entry : perOptimizer_) {
      anyChecked |= entry.second.infChecked;
      anyInf |= entry.second.foundInf;
    }
    if (!anyChecked) throw std::logic_error("No inf checks were recorded prior to update.");
    // PyTorch's _amp_update_scale_: the product is formed in double and stored into the float32 scale.
    if (anyInf) {
      scale_ = static_cast<float>(static_cast<double>(scale_) * backoffFactor_);
      growthTracker_ = 0;
    } else {
      const int64_t successful = growthTracker_ + 1;
      if (successful == growthInterval_) {
        const float grown = static_cast<float>(static_cast<double>(scale_) * growthFactor_);
        if (std::isfinite(grown)) scale_ = grown;  // never grow past float32's range to inf
        growthTracker_ = 0;
      } else {
        growthTracker_ = successful;
      }
    }
    lastUpdateFoundInf_ = anyInf;
  }
  perOptimizer_.clear();
}

double GradScaler::getScale() const { return enabled_ ? static_cast<double>(scale_) : 1.0; }

int64_t GradScaler::growthTracker() const { return enabled_ ? growthTracker_ : 0; }

bool GradScaler::foundInfLastStep() const {
  if (!enabled_) return false;
  bool anyChecked = false;
  bool anyInf = false;
  for (const auto& entry : perOptimizer_) {
    anyChecked |= entry.second.infChecked;
    anyInf |= entry.second.foundInf;
  }
  return anyChecked ? anyInf : lastUpdateFoundInf_;
}

GradScaler::OptState GradScaler::state(const torch::optim::Optimizer& optimizer) const {
  const auto it = perOptimizer_.find(&optimizer);
  return it == perOptimizer_.end() ? OptState::Ready : it->second.stage;
}

GradScaler::State GradScaler::stateDict() const {
  return State{getScale(), growthFactor_, backoffFactor_, growthInterval_, growthTracker(), enabled_};
}

void GradScaler::loadStateDict(const State& state) {
  if (!enabled_) return;
  if (!state.enabled) {
    throw std::invalid_argument(
        "The source state dict is empty, possibly because it was saved from a disabled instance of "
        "GradScaler.");
  }
  validateScalerConfig(state.scale, state.growthFactor, state.backoffFactor, state.growthInterval);
  if (state.growthTracker < 0 || state.growthTracker >= state.growthInterval) {
    throw std::invalid_argument("GradScaler: the growth tracker must be in [0, growth interval), got " +
                                std::to_string(state.growthTracker));
  }
  scale_ = static_cast<float>(state.scale);
  growthFactor_ = state.growthFactor;
  backoffFactor_ = state.backoffFactor;
  growthInterval_ = state.growthInterval;
  growthTracker_ = state.growthTracker;
}

}  // namespace ampscope::detail

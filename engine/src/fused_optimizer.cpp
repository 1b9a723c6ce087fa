#include "fused_optimizer.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "fused_kernels.h"
#include "torch_compat.h"

namespace ampscope::detail {
namespace {

// Runs add_(other, alpha) on values where x + a*b rounded once and rounded twice differ, over a
// length that has a vector body and a scalar tail in every ATen CPU build, and reads which it did.
AtenMultiplyAdd measureAtenMultiplyAdd() {
  at::NoGradGuard noGrad;
  constexpr int64_t n = 64 + 7;
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24. Rounded to float32 the product loses the 2^-24 (a tie, to the
  // even 1 + 2^-11), so adding -(1 + 2^-11) gives 0; one FMA keeps it and gives 2^-24.
  const float a = 1.0f + std::ldexp(1.0f, -12);
  const float c = -(1.0f + std::ldexp(1.0f, -11));
  torch::Tensor self = torch::full({n}, c);
  torch::Tensor other = torch::full({n}, a);
  self.add_(other, a);  // self + a * other
  const float fused = std::fma(a, a, c);
  const float separate = a * a + c;
  if (fused == separate) return AtenMultiplyAdd::Inconsistent;  // cannot tell: be safe
  const float* out = self.data_ptr<float>();
  int64_t fusedCount = 0, separateCount = 0;
  for (int64_t i = 0; i < n; ++i) {
    fusedCount += out[i] == fused;
    separateCount += out[i] == separate;
  }
  if (fusedCount == n) return AtenMultiplyAdd::Fused;
  if (separateCount == n) return AtenMultiplyAdd::Separate;
  return AtenMultiplyAdd::Inconsistent;
}

// Consecutive parameters that take part in a step with the same coefficients form one run of the
// flat buffers: [begin, end) parameter indices.
template <typename SameRun>
void forEachRun(const FlatParameters& flat, SameRun&& sameRun,
                const std::function<void(size_t begin, size_t end)>& body) {
  const auto& defined = flat.gradientDefined();
  size_t i = 0;
  while (i < defined.size()) {
    if (!defined[i]) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < defined.size() && defined[j] && sameRun(i, j)) ++j;
    body(i, j);
    i = j;
  }
}

float* floatData(torch::Tensor& t) { return t.data_ptr<float>(); }

}  // namespace

AtenMultiplyAdd atenMultiplyAdd() {
  static const AtenMultiplyAdd measured = measureAtenMultiplyAdd();
  return measured;
}

bool fusedStepsAvailable(torch::ScalarType dtype) {
  return dtype == torch::kFloat && atenMultiplyAdd() != AtenMultiplyAdd::Inconsistent;
}

FusedAdamW::FusedAdamW(FlatParameters& flat, std::vector<torch::Tensor> params,
                       torch::optim::AdamWOptions options, std::optional<LowFormat> rounding)
    : torch::optim::AdamW(std::move(params), options),
      flat_(flat),
      rounding_(rounding),
      fma_(atenMultiplyAdd() == AtenMultiplyAdd::Fused) {
  TORCH_CHECK(param_groups().size() == 1 && param_groups()[0].params().size() == flat_.segments().size(),
              "FusedAdamW: one parameter group holding the flat buffer's parameters");
  TORCH_CHECK(flat_.values().scalar_type() == torch::kFloat, "FusedAdamW: float32 parameters only");
  TORCH_CHECK(!options.amsgrad(), "FusedAdamW does not implement amsgrad");
  states_.assign(flat_.segments().size(), nullptr);
}

torch::Tensor FusedAdamW::step(LossClosure closure) {
  at::NoGradGuard noGrad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enableGrad(true);
    loss = closure();
  }
  auto& group = param_groups()[0];
  const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
  auto& params = group.params();
  // Each parameter's state, made on its first step (zeros, as torch::optim), as views of the flat state.
  for (size_t i = 0; i < params.size(); ++i) {
    if (!flat_.gradientDefined()[i]) continue;
    if (states_[i] == nullptr) {
      if (!expAvg_.defined()) {
        expAvg_ = flat_.zerosLike();
        expAvgSq_ = flat_.zerosLike();
      }
      auto state = std::make_unique<torch::optim::AdamWParamState>();
      state->step(0);
      state->exp_avg(flat_.viewOf(expAvg_, i));
      state->exp_avg_sq(flat_.viewOf(expAvgSq_, i));
      states_[i] = state.get();
      state_[optimizerStateKey(params[i])] = std::move(state);
    }
    states_[i]->step(states_[i]->step() + 1);
  }
  const double lr = options.lr();
  const double beta1 = std::get<0>(options.betas());
  const double beta2 = std::get<1>(options.betas());
  float* p = floatData(flat_.values());
  const float* g = flat_.gradients().data_ptr<float>();
  float* m = expAvg_.defined() ? floatData(expAvg_) : nullptr;
  float* v = expAvgSq_.defined() ? floatData(expAvgSq_) : nullptr;
  bool finite = true;
  forEachRun(
      flat_, [&](size_t a, size_t b) { return states_[a]->step() == states_[b]->step(); },
      [&](size_t begin, size_t end) {
        const auto t = static_cast<double>(states_[begin]->step());
        AdamWCoefficients c;
        c.weightDecay = options.weight_decay() != 0;
        c.decay = static_cast<float>(1 - lr * options.weight_decay());
        c.beta1 = static_cast<float>(beta1);
        c.oneMinusBeta1 = static_cast<float>(1 - beta1);
        c.beta2 = static_cast<float>(beta2);
        c.oneMinusBeta2 = static_cast<float>(1 - beta2);
        c.biasCorrection2Sqrt = static_cast<float>(std::sqrt(1 - std::pow(beta2, t)));
        c.eps = static_cast<float>(options.eps());
        c.negativeStepSize = static_cast<float>(-(lr / (1 - std::pow(beta1, t))));
        const int64_t offset = flat_.segments()[begin].offset;
        const int64_t n = flat_.segments()[end - 1].offset + flat_.segments()[end - 1].numel - offset;
        finite &= rounding_ ? adamwRoundedPass(p + offset, g + offset, m + offset, v + offset, n, c, fma_,
                                               *rounding_, updateCounts_)
                            : adamwPass(p + offset, g + offset, m + offset, v + offset, n, c, fma_);
      });
  finite_ = finite;
  return loss;
}

FusedSgd::FusedSgd(FlatParameters& flat, std::vector<torch::Tensor> params, torch::optim::SGDOptions options,
                   std::optional<LowFormat> rounding)
    : torch::optim::SGD(std::move(params), options),
      flat_(flat),
      rounding_(rounding),
      fma_(atenMultiplyAdd() == AtenMultiplyAdd::Fused) {
  TORCH_CHECK(param_groups().size() == 1 && param_groups()[0].params().size() == flat_.segments().size(),
              "FusedSgd: one parameter group holding the flat buffer's parameters");
  TORCH_CHECK(flat_.values().scalar_type() == torch::kFloat, "FusedSgd: float32 parameters only");
  TORCH_CHECK(!options.nesterov() && options.dampening() == 0, "FusedSgd implements plain momentum only");
  states_.assign(flat_.segments().size(), nullptr);
}

torch::Tensor FusedSgd::step(LossClosure closure) {
  at::NoGradGuard noGrad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enableGrad(true);
    loss = closure();
  }
  auto& group = param_groups()[0];
  const auto& options = static_cast<const torch::optim::SGDOptions&>(group.options());
  auto& params = group.params();
  const bool momentum = options.momentum() != 0;
  // Whether each parameter's buffer is new this step (it then starts as a copy of the direction).
  std::vector<bool> first(params.size(), false);
  if (momentum) {
    for (size_t i = 0; i < params.size(); ++i) {
      if (!flat_.gradientDefined()[i] || states_[i] != nullptr) continue;
      if (!momentum_.defined()) momentum_ = flat_.zerosLike();
      auto state = std::make_unique<torch::optim::SGDParamState>();
      state->momentum_buffer(flat_.viewOf(momentum_, i));
      states_[i] = state.get();
      state_[optimizerStateKey(params[i])] = std::move(state);
      first[i] = true;
    }
  }
  float* p = floatData(flat_.values());
  const float* g = flat_.gradients().data_ptr<float>();
  float* buf = momentum_.defined() ? floatData(momentum_) : nullptr;
  bool finite = true;
  forEachRun(
      flat_, [&](size_t a, size_t b) { return first[a] == first[b]; },
      [&](size_t begin, size_t end) {
        SgdCoefficients c;
        c.weightDecay = options.weight_decay() != 0;
        c.decay = static_cast<float>(options.weight_decay());
        c.momentum = momentum;
        c.momentumFactor = static_cast<float>(options.momentum());
        c.firstStep = first[begin];
        c.negativeLr = static_cast<float>(-1 * options.lr());
        const int64_t offset = flat_.segments()[begin].offset;
        const int64_t n = flat_.segments()[end - 1].offset + flat_.segments()[end - 1].numel - offset;
        float* b = buf ? buf + offset : nullptr;
        finite &= rounding_ ? sgdRoundedPass(p + offset, g + offset, b, n, c, fma_, *rounding_, updateCounts_)
                            : sgdPass(p + offset, g + offset, b, n, c, fma_);
      });
  finite_ = finite;
  return loss;
}

}  // namespace ampscope::detail

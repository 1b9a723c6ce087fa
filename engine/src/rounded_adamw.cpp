#include "rounded_adamw.h"

#include <cmath>

#include "precision_context.h"
#include "torch_compat.h"

namespace ampscope::detail {

torch::Tensor RoundedAdamW::step(LossClosure closure) {
  at::NoGradGuard noGrad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enableGrad(true);
    loss = closure();
  }
  auto r = [this](torch::Tensor t) {
    roundInPlace(t, format_, nullptr);
    return t;
  };
  for (auto& group : param_groups()) {
    auto& options = static_cast<torch::optim::AdamWOptions&>(group.options());
    const double lr = options.lr();
    const double beta1 = std::get<0>(options.betas());
    const double beta2 = std::get<1>(options.betas());
    TORCH_CHECK(!options.amsgrad(), "RoundedAdamW does not implement amsgrad");
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const torch::Tensor grad = r(p.grad().contiguous().clone());
      const OptimizerStateKey key = optimizerStateKey(p);
      auto it = state_.find(key);
      if (it == state_.end()) {
        auto state = std::make_unique<torch::optim::AdamWParamState>();
        state->step(0);
        state->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
        state->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
        it = state_.emplace(key, std::move(state)).first;
      }
      auto& state = static_cast<torch::optim::AdamWParamState&>(*it->second);
      state.step(state.step() + 1);
      const auto t = static_cast<double>(state.step());

      if (options.weight_decay() != 0) r(p.mul_(1 - lr * options.weight_decay()));
      torch::Tensor m = state.exp_avg();
      torch::Tensor v = state.exp_avg_sq();
      r(m.mul_(beta1));
      r(m.add_(grad, 1 - beta1));
      r(v.mul_(beta2));
      r(v.addcmul_(grad, grad, 1 - beta2));
      const double biasCorrection1 = 1 - std::pow(beta1, t);
      const double biasCorrection2Sqrt = std::sqrt(1 - std::pow(beta2, t));
      torch::Tensor denom = r(v.sqrt());
      r(denom.div_(biasCorrection2Sqrt));
      r(denom.add_(options.eps()));
      p.addcdiv_(m, denom, -lr / biasCorrection1);
      roundInPlace(p, format_, updateCounts_);
    }
  }
  return loss;
}

}  // namespace ampscope::detail

#include "rounded_sgd.h"

#include "precision_context.h"
#include "torch_compat.h"

namespace ampscope::detail {

torch::Tensor RoundedSgd::step(LossClosure closure) {
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
    auto& options = static_cast<torch::optim::SGDOptions&>(group.options());
    TORCH_CHECK(!options.nesterov() && options.dampening() == 0,
                "RoundedSgd implements plain momentum only");
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      torch::Tensor direction = r(p.grad().contiguous().clone());
      if (options.weight_decay() != 0) r(direction.add_(p, options.weight_decay()));
      if (options.momentum() != 0) {
        const OptimizerStateKey key = optimizerStateKey(p);
        auto it = state_.find(key);
        if (it == state_.end()) {
          auto state = std::make_unique<torch::optim::SGDParamState>();
          state->momentum_buffer(direction.clone());
          state_.emplace(key, std::move(state));
        } else {
          torch::Tensor buffer =
              static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
          r(buffer.mul_(options.momentum()));
          r(buffer.add_(direction));
          direction = buffer;
        }
      }
      p.add_(direction, -options.lr());
      roundInPlace(p, format_, updateCounts_);
    }
  }
  return loss;
}

}  // namespace ampscope::detail

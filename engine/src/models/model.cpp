#include "models/model.h"

#include "models/mlp.h"
#include "models/tiny_transformer.h"

namespace ampscope::detail {

torch::Tensor Model::loss(PrecisionContext& ctx, const Act& logits, const torch::Tensor& targets) {
  const int64_t classes = logits.t.size(-1);
  const Act flat{logits.t.reshape({-1, classes}), logits.low, logits.format};
  return ctx.crossEntropy("loss", flat, targets.reshape({-1}));
}

std::shared_ptr<Model> makeModel(ModelKind kind) {
  switch (kind) {
    case ModelKind::TinyMLP:
      return std::make_shared<Mlp>(std::vector<int64_t>{Mlp::kTinyInput, 512, Mlp::kTinyClasses});
    case ModelKind::DeepMLP:
      return std::make_shared<Mlp>(std::vector<int64_t>{128, 256, 256, 256, 256, 10});
    case ModelKind::TinyTransformer:
      return std::make_shared<TinyTransformer>(TinyTransformer::Options{});
  }
  throw std::invalid_argument("unknown model");
}

}  // namespace ampscope::detail

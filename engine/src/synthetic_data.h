// The training data of a comparison, generated from the seed and the step number alone, so every
// mode sees the same batch at the same step and a run can be reproduced (or exported) exactly.
//
// - MLPs: x ~ N(0, 1)^[batch, 128]; label = argmax(x · T) for a fixed random "teacher" matrix
//   T [128, 10] drawn from the seed, so the task is learnable (linearly separable classes).
// - TinyTransformer: a character corpus of arithmetic lines "a+b=c\n" (0 <= a, b < 100) drawn from the
//   seed; a batch is `batch` windows of context+1 characters at random offsets (inputs: the first
//   context characters, targets: the same shifted by one).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "ampscope/engine/run_config.h"

namespace ampscope::detail {

struct Batch {
  torch::Tensor inputs;   // float32 [B, 128] or int64 [B, T]
  torch::Tensor targets;  // int64 [B] or [B, T]
};

class SyntheticData {
 public:
  static constexpr int64_t kFeatures = 128;
  static constexpr int64_t kClasses = 10;
  static constexpr const char* kAlphabet = "0123456789+=\n";

  SyntheticData(ModelKind model, uint64_t seed, int64_t batchSize, int64_t context = 32);
  Batch batch(int64_t step) const;  // step is 1-based; any step can be asked for, in any order
  const std::string& corpus() const { return corpus_; }

 private:
  uint64_t streamSeed(int64_t step) const;

  ModelKind model_;
  uint64_t seed_;
  int64_t batchSize_;
  int64_t context_;
  torch::Tensor teacher_;   // [128, 10]
  std::string corpus_;
  torch::Tensor corpusIds_; // int64 [corpus length]
};

}  // namespace ampscope::detail

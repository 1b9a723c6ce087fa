#include "synthetic_data.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cstring>
#include <random>

namespace ampscope::detail {
namespace {

// splitmix64: decorrelates the per-step streams of nearby seeds.
uint64_t mix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ull;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  return value ^ (value >> 31);
}

constexpr int64_t kCorpusLines = 6000;

}  // namespace

SyntheticData::SyntheticData(ModelKind model, uint64_t seed, int64_t batchSize, int64_t context)
    : model_(model), seed_(seed), batchSize_(batchSize), context_(context) {
  at::NoGradGuard noGrad;
  if (model == ModelKind::TinyTransformer) {
    std::mt19937_64 random(mix(seed ^ 0x636F72707573ull));
    std::uniform_int_distribution<int> operand(0, 99);
    for (int64_t i = 0; i < kCorpusLines; ++i) {
      const int a = operand(random);
      const int b = operand(random);
      corpus_ += std::to_string(a) + "+" + std::to_string(b) + "=" + std::to_string(a + b) + "\n";
    }
    std::vector<int64_t> ids(corpus_.size());
    for (size_t i = 0; i < corpus_.size(); ++i) {
      ids[i] = static_cast<int64_t>(std::strchr(kAlphabet, corpus_[i]) - kAlphabet);
    }
    corpusIds_ = torch::tensor(ids, torch::kLong);
  } else {
    at::Generator generator = at::detail::createCPUGenerator(mix(seed ^ 0x74656163686572ull));
    teacher_ = torch::randn({kFeatures, kClasses}, generator);
  }
}

uint64_t SyntheticData::streamSeed(int64_t step) const {
  return mix(mix(seed_) ^ static_cast<uint64_t>(step));
}

Batch SyntheticData::batch(int64_t step) const {
  at::NoGradGuard noGrad;
  Batch result;
  if (model_ == ModelKind::TinyTransformer) {
    std::mt19937_64 random(streamSeed(step));
    const auto maxOffset = static_cast<int64_t>(corpus_.size()) - context_ - 1;
    std::uniform_int_distribution<int64_t> offset(0, maxOffset);
    std::vector<torch::Tensor> windows;
    windows.reserve(static_cast<size_t>(batchSize_));
    for (int64_t i = 0; i < batchSize_; ++i) {
      windows.push_back(corpusIds_.narrow(0, offset(random), context_ + 1));
    }
    const torch::Tensor stacked = torch::stack(windows);
    result.inputs = stacked.narrow(1, 0, context_).contiguous();
    result.targets = stacked.narrow(1, 1, context_).contiguous();
  } else {
    at::Generator generator = at::detail::createCPUGenerator(streamSeed(step));
    result.inputs = torch::randn({batchSize_, kFeatures}, generator);
    result.targets = torch::matmul(result.inputs, teacher_).argmax(1);
  }
  return result;
}

}  // namespace ampscope::detail

#include "ampscope/engine/comparison.h"

#include <torch/torch.h>

#include <dlfcn.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <mutex>

#include <stdexcept>
#include <thread>

#include "counting_allocator.h"
#include "mode_trainer.h"
#include "models/model.h"
#include "synthetic_data.h"

namespace ampscope {

struct Comparison::Impl {
  RunConfig config;
  std::vector<ModeCapability> capabilities;
  std::shared_ptr<detail::Model> reference;  // the initial weights, shared by every mode
  detail::SyntheticData data;
  std::vector<std::unique_ptr<detail::ModeTrainer>> trainers;
  std::vector<bool> reportedDiverged;
  int64_t stepsDone = 0;
  bool injectOverflow = false;
  std::thread::id threadConfigured;

  explicit Impl(const RunConfig& c)
      : config(c), data(c.model, c.seed, c.batchSize) {}

  detail::ModeTrainer& trainer(PrecisionMode mode) {
    for (auto& t : trainers) {
      if (t->mode() == mode) return *t;
    }
    throw std::invalid_argument("mode " + modeName(mode) + " is not part of this comparison");
  }
  const detail::ModeTrainer& trainer(PrecisionMode mode) const {
    return const_cast<Impl*>(this)->trainer(mode);
  }

  // Intra-op threads are per calling thread (OpenMP): set them on the thread that trains. OpenBLAS
  // keeps its own pool, which at::set_num_threads does not touch in 1.13; on a busy machine its
  // threads spin in sched_yield waiting for each other, so it gets the same count (looked up at run
  // time: the BLAS behind libblas.so.3 may not be OpenBLAS).
  void configureThread() {
    if (threadConfigured == std::this_thread::get_id()) return;
    at::set_num_threads(config.threadsPerMode);
    using SetThreads = void (*)(int);
    if (auto* setBlasThreads =
            reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
      setBlasThreads(config.threadsPerMode);
    }
    threadConfigured = std::this_thread::get_id();
  }
};

namespace {

// A training step allocates and frees the same few 100 kB tensors (weight gradients, casts, Adam
// temporaries) every time. glibc serves blocks above its mmap threshold (128 kB at first) with
// mmap/munmap and trims the heap top when much is free, so each step paid fresh zeroed pages: a third
// of the CPU time of a TinyMLP step went to page faults. Keeping such blocks on the heap stops that.
// Process-wide, once; the app is a training program.
void keepTrainingBuffersOnTheHeap() {
#ifdef __GLIBC__
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
  });
#endif
}

std::string joinErrors(const std::vector<ConfigError>& errors) {
  std::string text = "invalid run configuration:";
  for (const auto& e : errors) text += " --" + e.field + ": " + e.message + ";";
  return text;
}

}  // namespace

Comparison::Comparison(const RunConfig& config) {
  const auto errors = validate(config);
  if (!errors.empty()) throw std::invalid_argument(joinErrors(errors));
  detail::installCountingAllocator();
  keepTrainingBuffersOnTheHeap();
  impl_ = std::make_unique<Impl>(config);
  impl_->configureThread();
  impl_->capabilities = probeCapabilities(config.modes, config.precisionPath, config.threadsPerMode, config.model);
  torch::manual_seed(config.seed);
  impl_->reference = detail::makeModel(config.model);
  if (config.initGain != 1.0) {
    torch::NoGradGuard noGrad;
    for (auto& parameter : impl_->reference->parameters()) parameter.mul_(config.initGain);
  }
  for (const auto& capability : impl_->capabilities) {
    impl_->trainers.push_back(
        std::make_unique<detail::ModeTrainer>(config, capability, *impl_->reference));
    impl_->reportedDiverged.push_back(false);
  }
}

Comparison::~Comparison() = default;

const RunConfig& Comparison::config() const { return impl_->config; }

StepRecord Comparison::step() {
  impl_->configureThread();
  const int64_t index = impl_->stepsDone + 1;
  const detail::Batch batch = impl_->data.batch(index);
  const bool instrument = index == 1 || index % impl_->config.instrumentEvery == 0;
  const bool inject = impl_->injectOverflow;
  impl_->injectOverflow = false;
  StepRecord record;
  record.step = index;
  for (size_t i = 0; i < impl_->trainers.size(); ++i) {
    auto& trainer = *impl_->trainers[i];
    if (trainer.diverged()) continue;
    ModeStep modeStep = trainer.step(index, batch, instrument, inject);
    if (modeStep.diverged) impl_->reportedDiverged[i] = true;
    record.modes.push_back(std::move(modeStep));
  }
  impl_->stepsDone = index;
  return record;
}

int64_t Comparison::stepsDone() const { return impl_->stepsDone; }

bool Comparison::allDiverged() const {
  for (const auto& t : impl_->trainers) {
    if (!t->diverged()) return false;
  }
  return true;
}

std::vector<ModeCapability> Comparison::capabilities() const { return impl_->capabilities; }

std::vector<OpDtypeEntry> Comparison::opDtypeReport(PrecisionMode mode) {
  impl_->configureThread();
  return impl_->trainer(mode).opDtypeReport(impl_->data.batch(impl_->stepsDone + 1));
}

MemoryLedger Comparison::memoryLedger(PrecisionMode mode) const {
  return impl_->trainer(mode).memoryLedger();
}

void Comparison::injectOverflowNextStep() { impl_->injectOverflow = true; }

namespace {

Comparison::NamedTensor toNamed(const std::string& name, const torch::Tensor& tensor) {
  Comparison::NamedTensor named;
  named.name = name;
  named.shape = tensor.sizes().vec();
  const torch::Tensor data = tensor.detach().contiguous();
  if (data.is_floating_point()) {
    const torch::Tensor f = data.to(torch::kFloat);
    named.values.assign(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
  } else {
    const torch::Tensor l = data.to(torch::kLong);
    named.intValues.assign(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
  }
  return named;
}

}  // namespace

std::vector<Comparison::NamedTensor> Comparison::initialParameters() const {
  std::vector<NamedTensor> result;
  for (const auto& item : impl_->reference->named_parameters()) {
    result.push_back(toNamed(item.key(), item.value()));
  }
  return result;
}

std::vector<Comparison::NamedTensor> Comparison::batch(int64_t step) const {
  if (step < 1) throw std::invalid_argument("steps are 1-based");
  const detail::Batch b = impl_->data.batch(step);
  return {toNamed("inputs", b.inputs), toNamed("targets", b.targets)};
}

}  // namespace ampscope

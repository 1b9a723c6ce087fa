// probeCapabilities: tries each mode's native path once on this LibTorch (CPU), and falls back to the
// exact emulation where a kernel or the autocast dtype is missing, or where the native GEMM fails its
// self-check against an exact reference (kernel_check.h). Where both paths exist, the run's
// precision-path picks one: auto trains a few steps of the run's model on each path on this machine
// (once: the numbers are kept in the path-timing cache file), and takes the emulation only where both
// agree bit for bit and the emulation is faster (path_timing.h).
#include <torch/torch.h>
#include <torch/version.h>

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/path_timing.h"
#include "autocast_scope.h"
#include "global_generator_guard.h"
#include "kernel_check_cases.h"
#include "mode_trainer.h"
#include "models/model.h"
#include "synthetic_data.h"

namespace ampscope {
namespace {

std::string firstLine(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

// Autocast with `dtype` on CPU: a linear must come out in `dtype`, a gelu on it must run, and the
// backward must run.
std::string tryAutocast(torch::ScalarType dtype) {
  try {
    torch::Tensor weight = torch::randn({4, 8}).requires_grad_(true);
    torch::Tensor out;
    {
      detail::AutocastScope scope(c10::DeviceType::CPU, dtype);
      out = torch::gelu(torch::linear(torch::randn({2, 8}), weight));
    }
    if (out.scalar_type() != dtype) return "autocast did not produce " + std::string(c10::toString(dtype));
    out.to(torch::kFloat).sum().backward();
    return "";
  } catch (const std::exception& error) {
    return firstLine(error.what());
  }
}

// Kernels a model.half()/model.to(bfloat16) run needs, on CPU.
std::string tryPureKernels(torch::ScalarType dtype) {
  try {
    torch::Tensor weight = torch::randn({4, 8}).to(dtype).requires_grad_(true);
    torch::Tensor x = torch::randn({2, 8}).to(dtype);
    torch::Tensor h = torch::gelu(torch::linear(x, weight));
    h = torch::layer_norm(h, {4});
    h = torch::softmax(h, -1) + torch::log_softmax(h, -1);
    torch::Tensor loss = torch::cross_entropy_loss(h, torch::tensor({1, 2}, torch::kLong));
    loss.backward();
    return "";
  } catch (const std::exception& error) {
    return firstLine(error.what());
  }
}

std::string libtorchVersion() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

// Whether the native path runs, the sentence of each path, why a native path that runs is not used
// (its GEMM failed the self-check), and how its GEMM compares with the emulation's.
struct Availability {
  bool native = true;
  std::string nativeDetail;
  std::string emulatedDetail;
  std::string rejected;
  std::string kernelNote;
};

// The self-check of the GEMM a mode's native path runs: a wrong one takes the native path away.
void applyKernelCheck(Availability& a, const std::string& kernel, const std::string& dtypeName) {
  const KernelCheck* check = findKernelCheck(nativeKernelChecks(), kernel);
  if (!a.native || !check || !check->available) return;
  if (!check->correct) {
    a.native = false;
    a.rejected = "native " + dtypeName + " linear failed its self-check on this CPU: " + check->note;
    a.emulatedDetail += " Native not used: " + a.rejected + ".";
    return;
  }
  if (check->comparedWithEmulation) {
    char text[240];
    if (check->emulationDifferingShare == 0) {
      std::snprintf(text, sizeof text, "native and emulated %s linear agree on all %lld outputs of the models' layer shapes",
                    dtypeName.c_str(), static_cast<long long>(check->outputs));
    } else {
      std::snprintf(text, sizeof text,
                    "native and emulated %s linear differ in %.3g %% of %lld outputs, by at most %.0f ulp "
                    "(this CPU's kernels sum in another order than an FP32 GEMM)",
                    dtypeName.c_str(), check->emulationDifferingShare * 100.0, static_cast<long long>(check->outputs),
                    check->emulationMaxUlps);
    }
    a.kernelNote = text;
  }
}

Availability probeOne(PrecisionMode mode) {
  Availability a;
  const std::string version = std::to_string(TORCH_VERSION_MAJOR) + "." +
                              std::to_string(TORCH_VERSION_MINOR);
  switch (mode) {
    case PrecisionMode::FP32:
      a.nativeDetail = "FP32 CPU kernels (native).";
      break;
    case PrecisionMode::BF16Amp: {
      const std::string error = tryAutocast(torch::kBFloat16);
      a.native = error.empty();
      a.nativeDetail = "BF16 CPU autocast (native), FP32 master weights.";
      a.emulatedDetail = "BF16 emulated (exact RNE at autocast's cast points), FP32 master weights";
      a.emulatedDetail += a.native ? "." : "; CPU autocast failed: " + error;
      applyKernelCheck(a, "bf16-linear", "BF16");
      break;
    }
    case PrecisionMode::FP16Amp:
    case PrecisionMode::FP16AmpScaled: {
      const std::string error = tryAutocast(torch::kHalf);
      a.native = error.empty();
      a.nativeDetail = "FP16 CPU autocast (native), FP32 master weights.";
      a.emulatedDetail =
          "FP16 emulated: FP32 arithmetic rounded exactly (RNE) to FP16 wherever autocast would cast, "
          "forward and backward (tensors stay FP32 in memory, so memory figures are the emulation's)";
      a.emulatedDetail += a.native ? "." : "; LibTorch " + version + " CPU autocast says: " + error;
      applyKernelCheck(a, "fp16-linear", "FP16");
      break;
    }
    case PrecisionMode::FP16Pure:
    case PrecisionMode::BF16Pure: {
      const torch::ScalarType dtype =
          mode == PrecisionMode::FP16Pure ? torch::kHalf : torch::kBFloat16;
      const std::string error = tryPureKernels(dtype);
      a.native = error.empty();
      const std::string name = mode == PrecisionMode::FP16Pure ? "FP16" : "BF16";
      a.nativeDetail =
          name + " CPU kernels (native): parameters, activations and the update in " + name + ".";
      a.emulatedDetail = name + " emulated: every op's output, every gradient and the stored parameters "
                                "and optimizer state rounded exactly (RNE) to " + name +
                         " (held in FP32 tensors, so memory figures are the emulation's)";
      a.emulatedDetail += a.native ? "." : "; LibTorch " + version + " CPU says: " + error;
      applyKernelCheck(a, mode == PrecisionMode::FP16Pure ? "fp16-linear" : "bf16-linear", name);
      break;
    }
    case PrecisionMode::Fp8Delayed:
    case PrecisionMode::Fp8Current:
    case PrecisionMode::MXFP8:
    case PrecisionMode::NVFP4:
      // No FP8 GEMM on this machine's LibTorch: the quantisation is emulated (docs/fp8-recipes.md).
      a.native = false;
      a.emulatedDetail = "Emulated: GEMM inputs scaled, rounded (RNE, saturating) to the recipe's formats "
                         "and dequantised around FP32 GEMMs; master weights and optimizer in FP32.";
      break;
    case PrecisionMode::Plan:
      // One autocast region cannot switch format per layer without nesting regions; the emulation
      // rounds each layer exactly as its own mode does (docs/precision-plans.md).
      a.native = false;
      a.emulatedDetail = "Per-layer plan, emulated: each GEMM layer rounded exactly (RNE) as its own mode, "
                         "the other ops as the plan's default mode; master weights and optimizer in FP32.";
      break;
  }
  return a;
}

// CPU time of the calling thread when it computes alone (one intra-op thread: other processes and
// threads do not count), else wall time (the pool's threads work for it and waiting counts).
double nowUs() {
  if (at::get_num_threads() == 1) {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) * 1e-3;
  }
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A few warm steps of the run's model on each path from the same weights and batches, alternating so
// that a slow moment hits both; the fastest step of each counts (interruptions only ever add time).
// Every step's loss and the final weights are compared bit for bit. The training thread's thread
// count is already set. The global generator's state is put back: the run seeds it afterwards, but a
// caller that does not must see no change.
PathTiming measurePaths(PrecisionMode mode, ModelKind model, int /*threads*/) {
  constexpr int kWarmSteps = 2;
  constexpr int kTimedSteps = 5;
  detail::GlobalGeneratorGuard keepGenerator;
  RunConfig config = presetFor(model);
  config.modes = {mode};
  torch::manual_seed(0);
  auto reference = detail::makeModel(model);
  ModeCapability native;
  native.mode = mode;
  ModeCapability emulated = native;
  emulated.native = false;
  detail::ModeTrainer nativeTrainer(config, native, *reference);
  detail::ModeTrainer emulatedTrainer(config, emulated, *reference);
  const detail::SyntheticData data(model, 0, config.batchSize);
  PathTiming best{1e300, 1e300};
  for (int i = 1; i <= kWarmSteps + kTimedSteps; ++i) {
    const detail::Batch batch = data.batch(i);
    double start = nowUs();
    const ModeStep nativeStep = nativeTrainer.step(i, batch, false, false);
    const double nativeUs = nowUs() - start;
    start = nowUs();
    const ModeStep emulatedStep = emulatedTrainer.step(i, batch, false, false);
    const double emulatedUs = nowUs() - start;
    if (i > kWarmSteps) {
      best.nativeUs = std::min(best.nativeUs, nativeUs);
      best.emulatedUs = std::min(best.emulatedUs, emulatedUs);
    }
    const bool same = nativeStep.loss == emulatedStep.loss ||
                      (std::isnan(nativeStep.loss) && std::isnan(emulatedStep.loss));
    if (!same && best.firstDifferingStep == 0) best.firstDifferingStep = i;
    const double difference = std::fabs(nativeStep.loss - emulatedStep.loss);
    if (std::isfinite(difference)) best.largestLossDifference = std::max(best.largestLossDifference, difference);
  }
  best.comparedSteps = kWarmSteps + kTimedSteps;
  if (best.firstDifferingStep == 0) {
    // Equal losses with different weights would show later: the final weights must agree too.
    const auto& a = nativeTrainer.namedParameters();
    const auto& b = emulatedTrainer.namedParameters();
    for (size_t p = 0; p < a.size() && p < b.size(); ++p) {
      if (!torch::equal(a[p].second.to(torch::kFloat), b[p].second.to(torch::kFloat))) {
        best.firstDifferingStep = best.comparedSteps;
        break;
      }
    }
  }
  return best;
}

struct TimingState {
  bool enabled = false;
  PathTimingOptions options;
  std::unique_ptr<PathTimingCache> cache;
};

std::mutex& stateMutex() {
  static std::mutex mutex;
  return mutex;
}
TimingState& timingState() {
  static TimingState state;
  return state;
}

// The timing of `mode` on this machine: from the cache, else measured now and stored. Caller holds
// stateMutex(). nullopt when timing is off or the measurement failed (*problem says why).
std::optional<PathTiming> timingFor(PrecisionMode mode, ModelKind model, int threads, std::string* problem) {
  TimingState& state = timingState();
  if (!state.enabled) return std::nullopt;
  static const std::pair<std::string, std::string> cpu = cpuIdentity();
  const std::string key = machineKey(cpu.first, cpu.second, libtorchVersion(), threads, modelName(model));
  if (auto cached = state.cache->find(key, mode)) return cached;
  try {
    const PathTiming timing =
        state.options.timer ? state.options.timer(mode, model, threads) : measurePaths(mode, model, threads);
    if (!(timing.nativeUs > 0) || !(timing.emulatedUs > 0)) return std::nullopt;
    state.cache->store(key, mode, timing);
    return timing;
  } catch (const std::exception& error) {
    *problem = firstLine(error.what());
    return std::nullopt;
  }
}

}  // namespace

void enablePathTiming(PathTimingOptions options) {
  std::lock_guard<std::mutex> lock(stateMutex());
  TimingState& state = timingState();
  state.enabled = true;
  state.cache = std::make_unique<PathTimingCache>(options.cacheFile);
  state.options = std::move(options);
}

void disablePathTiming() {
  std::lock_guard<std::mutex> lock(stateMutex());
  TimingState& state = timingState();
  state.enabled = false;
  state.cache.reset();
  state.options = {};
}

std::vector<ModeCapability> probeCapabilities(const std::vector<PrecisionMode>& modes, PrecisionPath path,
                                              int threads, ModelKind model) {
  static std::map<PrecisionMode, Availability> availability;
  static int checksGeneration = -1;
  std::lock_guard<std::mutex> lock(stateMutex());
  if (checksGeneration != detail::nativeKernelChecksGeneration()) {
    availability.clear();
    checksGeneration = detail::nativeKernelChecksGeneration();
  }
  std::vector<ModeCapability> result;
  for (PrecisionMode mode : modes) {
    auto it = availability.find(mode);
    if (it == availability.end()) it = availability.emplace(mode, probeOne(mode)).first;
    const Availability& a = it->second;
    ModeCapability capability;
    capability.mode = mode;
    capability.nativeAvailable = a.native;
    std::optional<PathTiming> timing;
    std::string problem;
    if (mode != PrecisionMode::FP32 && a.native && path == PrecisionPath::Auto) {
      timing = timingFor(mode, model, threads, &problem);
    }
    if (timing) {
      capability.nativeStepUs = timing->nativeUs;
      capability.emulatedStepUs = timing->emulatedUs;
      capability.comparedSteps = timing->comparedSteps;
      capability.firstDifferingStep = timing->firstDifferingStep;
    }
    capability.nativeFailedCheck = !a.rejected.empty();
    const PathDecision decision = decidePath(mode, a.native, path, timing);
    capability.native = decision.native;
    capability.pathNote = a.rejected.empty() ? decision.note : "emulated: " + a.rejected;
    if (mode == PrecisionMode::Plan) capability.pathNote = "emulated: a plan lane always is (docs/precision-plans.md)";
    capability.kernelNote = a.kernelNote;
    if (!problem.empty()) capability.pathNote += " (timing failed: " + problem + ")";
    capability.detail = decision.native ? a.nativeDetail : a.emulatedDetail;
    result.push_back(std::move(capability));
  }
  return result;
}

}  // namespace ampscope

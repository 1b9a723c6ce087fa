// probeCapabilities: tries each mode's native path once on this LibTorch (CPU), and falls back to the
// exact emulation where a kernel or the autocast dtype is missing. Results are cached per process.
#include <torch/torch.h>
#include <torch/version.h>

#include <map>
#include <mutex>
#include <string>

#include "ampscope/engine/comparison.h"
#include "autocast_scope.h"

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

ModeCapability probeOne(PrecisionMode mode) {
  ModeCapability capability;
  capability.mode = mode;
  const std::string version = std::to_string(TORCH_VERSION_MAJOR) + "." +
                              std::to_string(TORCH_VERSION_MINOR);
  switch (mode) {
    case PrecisionMode::FP32:
      capability.native = true;
      capability.detail = "FP32 CPU kernels (native).";
      break;
    case PrecisionMode::BF16Amp: {
      const std::string error = tryAutocast(torch::kBFloat16);
      capability.native = error.empty();
      capability.detail = capability.native
                              ? "BF16 CPU autocast (native), FP32 master weights."
                              : "BF16 emulated (exact RNE at autocast's cast points): CPU autocast "
                                "failed: " + error;
      break;
    }
    case PrecisionMode::FP16Amp:
    case PrecisionMode::FP16AmpScaled: {
      const std::string error = tryAutocast(torch::kHalf);
      capability.native = error.empty();
      capability.detail =
          capability.native
              ? "FP16 CPU autocast (native), FP32 master weights."
              : "FP16 emulated: FP32 arithmetic rounded exactly (RNE) to FP16 wherever autocast "
                "would cast, forward and backward (tensors stay FP32 in memory, so memory figures are "
                "the emulation's); LibTorch " + version + " CPU autocast says: " + error;
      break;
    }
    case PrecisionMode::FP16Pure:
    case PrecisionMode::BF16Pure: {
      const torch::ScalarType dtype =
          mode == PrecisionMode::FP16Pure ? torch::kHalf : torch::kBFloat16;
      const std::string error = tryPureKernels(dtype);
      capability.native = error.empty();
      const std::string name = mode == PrecisionMode::FP16Pure ? "FP16" : "BF16";
      capability.detail =
          capability.native
              ? name + " CPU kernels (native): parameters, activations and the update in " + name + "."
              : name + " emulated: every op's output, every gradient and the stored parameters and "
                       "optimizer state rounded exactly (RNE) to " + name + " (held in FP32 tensors, so "
                       "memory figures are the emulation's); LibTorch " + version +
                    " CPU says: " + error;
      break;
    }
    case PrecisionMode::Fp8Delayed:
    case PrecisionMode::Fp8Current:
    case PrecisionMode::MXFP8:
    case PrecisionMode::NVFP4:
      // No FP8 GEMM on this machine's LibTorch: the quantisation is emulated (docs/fp8-recipes.md).
      capability.native = false;
      capability.detail = "Emulated: GEMM inputs scaled, rounded (RNE, saturating) to the recipe's formats "
                          "and dequantised around FP32 GEMMs; master weights and optimizer in FP32.";
      break;
  }
  return capability;
}

}  // namespace

std::vector<ModeCapability> probeCapabilities(const std::vector<PrecisionMode>& modes) {
  static std::mutex mutex;
  static std::map<PrecisionMode, ModeCapability> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<ModeCapability> result;
  for (PrecisionMode mode : modes) {
    auto it = cache.find(mode);
    if (it == cache.end()) {
      it = cache.emplace(mode, probeOne(mode)).first;
    }
    result.push_back(it->second);
  }
  return result;
}

}  // namespace ampscope

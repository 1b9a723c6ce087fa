// RAII autocast region for the calling thread (autocast state is thread-local): enables autocast for
// one device type with one low-precision dtype, and on exit restores the previous state and clears the
// cast cache when the outermost region ends (what Python's `with torch.autocast(...)` does).
// LibTorch >= 2.4 has the device-generic at::autocast::set_autocast_enabled(device, ...); older ones
// (Debian's 1.13) have the per-device set_cpu_enabled / set_autocast_cpu_dtype (CPU) and
// set_enabled / set_autocast_gpu_dtype (CUDA). Throws what LibTorch throws for an unsupported dtype
// (1.13 CPU: only bfloat16).
#pragma once

#include <torch/torch.h>

namespace ampscope::detail {

class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, torch::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool previousEnabled_ = false;
  torch::ScalarType previousDtype_ = torch::kBFloat16;
};

}  // namespace ampscope::detail

#include "autocast_scope.h"

#include <ATen/autocast_mode.h>

#include <stdexcept>

#include "torch_compat.h"

namespace ampscope::detail {
namespace {

bool isEnabled(c10::DeviceType device) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

torch::ScalarType getDtype(c10::DeviceType device) {
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
#endif
}

void setState(c10::DeviceType device, bool enabled, torch::ScalarType dtype) {
  if (device != c10::DeviceType::CPU && device != c10::DeviceType::CUDA) {
    throw std::invalid_argument("autocast is only wired for CPU and CUDA");
  }
#if AMPSCOPE_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(device, dtype);
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);  // throws for anything but bfloat16 in 1.13
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  }
#endif
}

}  // namespace

AutocastScope::AutocastScope(c10::DeviceType device, torch::ScalarType dtype) : device_(device) {
  previousEnabled_ = isEnabled(device);
  previousDtype_ = getDtype(device);
  setState(device, true, dtype);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  try {
    setState(device_, previousEnabled_, previousDtype_);
  } catch (...) {
    // Restoring a state that was valid before cannot fail; never throw from a destructor.
  }
}

}  // namespace ampscope::detail

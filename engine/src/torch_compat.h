// The places where the LibTorch C++ API AmpScope uses differs between the versions it is built with
// (Debian 12's LibTorch 1.13, Debian 13's 2.6). Everything else is written once for both; a guard goes
// here only when more than one file needs it.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/version.h>

#include <string>

// True when the LibTorch being compiled against is MAJOR.MINOR or newer.
#define AMPSCOPE_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

#if !AMPSCOPE_TORCH_AT_LEAST(2, 2)
#include <c10/util/C++17.h>  // c10::guts::to_string
#endif

namespace ampscope::detail {

// The key torch::optim::Optimizer::state() files a parameter's state under. LibTorch 1.13 keys it by
// the parameter's TensorImpl address printed as a string (c10::guts::to_string); from 2.2 on it is the
// TensorImpl pointer itself (void*), and c10::guts::to_string is gone.
#if AMPSCOPE_TORCH_AT_LEAST(2, 2)
using OptimizerStateKey = void*;
inline OptimizerStateKey optimizerStateKey(const at::Tensor& p) { return p.unsafeGetTensorImpl(); }
#else
using OptimizerStateKey = std::string;
inline OptimizerStateKey optimizerStateKey(const at::Tensor& p) {
  return c10::guts::to_string(p.unsafeGetTensorImpl());
}
#endif

}  // namespace ampscope::detail

// The LibTorch half of version.h; AmpScope's own version is in data/app_version.cpp (no torch).
#include "ampscope/engine/version.h"

#include <torch/version.h>

#include <ATen/Parallel.h>
#include <ATen/Version.h>

namespace ampscope {

std::string libtorchVersion() { return TORCH_VERSION; }

std::string libtorchBuildInfo() {
  // at::show_config() is several lines; the About box wants one: backend and threading.
  std::string info = "LibTorch " + libtorchVersion();
#ifdef TORCH_CUDA_VERSION
  info += ", CUDA";
#else
  info += ", CPU";
#endif
  info += ", " + std::to_string(at::get_num_threads()) + " intra-op thread(s)";
  return info;
}

}  // namespace ampscope

// Versions shown in Help -> About, `--version` and the package: AmpScope's own (from CMake's
// project(VERSION)) and the LibTorch it was built against and runs with.
#pragma once

#include <string>

namespace ampscope {

std::string ampscopeVersion();    // "0.1.0"
std::string libtorchVersion();    // "1.13.1" (TORCH_VERSION of the LibTorch the engine was built with)
std::string libtorchBuildInfo();  // one line: CPU/CUDA, BLAS, OpenMP threads
std::string licenseName();        // "GPL-3.0-or-later"

}  // namespace ampscope

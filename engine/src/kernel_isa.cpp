#include "kernel_isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ampscope::detail {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
bool cpuHasV3() { return __builtin_cpu_supports("x86-64-v3"); }
bool cpuHasV4() { return __builtin_cpu_supports("x86-64-v4"); }
#elif defined(__x86_64__)
// Clang's __builtin_cpu_supports does not know the level names: x86-64-v3's vector and bit features,
// and x86-64-v4's AVX-512 subsets on top of them.
bool cpuHasV3() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
}
bool cpuHasV4() {
  return cpuHasV3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512cd");
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
KernelIsa detectKernelIsa() {
  __builtin_cpu_init();
  if (cpuHasV4()) return KernelIsa::X86_64_V4;
  if (cpuHasV3()) return KernelIsa::X86_64_V3;
  return KernelIsa::Baseline;
}
bool detectBf16() { return cpuHasV4() && __builtin_cpu_supports("avx512bf16"); }
bool detectGfni() {
  return cpuHasV4() && __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512bitalg") &&
         __builtin_cpu_supports("avx512vbmi");
}
#else
KernelIsa detectKernelIsa() { return KernelIsa::Baseline; }
bool detectBf16() { return false; }
bool detectGfni() { return false; }
#endif

std::atomic<bool>& gfniAllowed() {
  static std::atomic<bool> allowed{[] {
    const char* env = std::getenv("AMPSCOPE_KERNEL_GFNI");
    return env == nullptr || std::strcmp(env, "off") != 0;
  }()};
  return allowed;
}

// The choice in use, made at the first call: the CPU's best, or AMPSCOPE_KERNEL_ISA's if it is narrower.
std::atomic<int>& selectedIsa() {
  static std::atomic<int> isa{[] {
    KernelIsa chosen = bestKernelIsa();
    if (const char* env = std::getenv("AMPSCOPE_KERNEL_ISA")) {
      for (KernelIsa candidate : {KernelIsa::Baseline, KernelIsa::X86_64_V3, KernelIsa::X86_64_V4}) {
        if (std::strcmp(env, kernelIsaName(candidate)) == 0 && candidate <= chosen) chosen = candidate;
      }
    }
    return static_cast<int>(chosen);
  }()};
  return isa;
}

}  // namespace

KernelIsa bestKernelIsa() {
  static const KernelIsa best = detectKernelIsa();
  return best;
}

KernelIsa kernelIsa() { return static_cast<KernelIsa>(selectedIsa().load(std::memory_order_relaxed)); }

bool kernelIsaHasBf16() {
  static const bool cpuHas = detectBf16();
  return cpuHas && kernelIsa() == KernelIsa::X86_64_V4;
}

bool cpuHasKernelGfni() {
  static const bool has = detectGfni();
  return has;
}

bool kernelIsaGfniAllowed() { return gfniAllowed().load(std::memory_order_relaxed); }

bool kernelIsaHasGfni() {
  return cpuHasKernelGfni() && gfniAllowed().load(std::memory_order_relaxed) && kernelIsa() == KernelIsa::X86_64_V4;
}

bool setKernelIsaGfni(bool allowed) {
  if (!cpuHasKernelGfni()) return false;
  gfniAllowed().store(allowed, std::memory_order_relaxed);
  return true;
}

bool setKernelIsa(KernelIsa isa) {
  if (isa > bestKernelIsa()) return false;
  selectedIsa().store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

const char* kernelIsaName(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::X86_64_V4: return "x86-64-v4";
    case KernelIsa::X86_64_V3: return "x86-64-v3";
    case KernelIsa::Baseline: break;
  }
  return "baseline";
}

}  // namespace ampscope::detail

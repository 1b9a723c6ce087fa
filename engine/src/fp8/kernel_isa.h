// The instruction set the FP8/FP4 quantiser loops (element_quantizer.cpp, block_quantizer.cpp) run
// with. Their bodies are compiled three times, for x86-64-v4 (AVX-512), x86-64-v3 (AVX2) and the
// baseline (SSE2), and each call takes the variant kernelIsa() names: the widest the CPU has, unless
// the environment variable AMPSCOPE_FP8_ISA (baseline, x86-64-v3, x86-64-v4) or setKernelIsa() asks
// for a narrower one. All variants give the same bits: the loops are integer operations and single
// float32 multiplications, additions and divisions, never contracted into FMAs (checked by
// tests/engine/fp8/kernel_isa_test.cpp, which runs each variant the CPU has against the baseline).
// Unlike vector_clones.h this is a plain function-pointer choice, not an ifunc, so it is safe under
// ThreadSanitizer too. GCC on x86-64 only; elsewhere only the baseline exists.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AMPSCOPE_FP8_ISA_VARIANTS 1
#define AMPSCOPE_FP8_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#define AMPSCOPE_FP8_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define AMPSCOPE_FP8_ISA_VARIANTS 0
#endif

// For a loop body `name##Body` (an always-inline function): name##V4, name##V3 and name##Base, the
// body compiled for each instruction set, and `name`, which calls the one kernelIsa() names.
#if AMPSCOPE_FP8_ISA_VARIANTS
#define AMPSCOPE_FP8_ISA_DISPATCH(ret, name, params, args)                      \
  AMPSCOPE_FP8_TARGET_V4 ret name##V4 params { return name##Body args; }         \
  AMPSCOPE_FP8_TARGET_V3 ret name##V3 params { return name##Body args; }         \
  ret name##Base params { return name##Body args; }                              \
  ret name params {                                                              \
    switch (::ampscope::detail::fp8::kernelIsa()) {                              \
      case ::ampscope::detail::fp8::KernelIsa::X86_64_V4: return name##V4 args;  \
      case ::ampscope::detail::fp8::KernelIsa::X86_64_V3: return name##V3 args;  \
      case ::ampscope::detail::fp8::KernelIsa::Baseline: break;                  \
    }                                                                            \
    return name##Base args;                                                      \
  }
#else
#define AMPSCOPE_FP8_ISA_DISPATCH(ret, name, params, args) \
  ret name params { return name##Body args; }
#endif

#define AMPSCOPE_FP8_ALWAYS_INLINE inline __attribute__((always_inline))

namespace ampscope::detail::fp8 {

enum class KernelIsa { Baseline, X86_64_V3, X86_64_V4 };

KernelIsa bestKernelIsa();  // the widest variant this CPU (and this build) runs
KernelIsa kernelIsa();      // the one in use
// Tests: use `isa` from now on; false (nothing changes) when the CPU or the build lacks it.
bool setKernelIsa(KernelIsa isa);
const char* kernelIsaName(KernelIsa isa);  // "baseline", "x86-64-v3", "x86-64-v4"

}  // namespace ampscope::detail::fp8

// AMPSCOPE_VECTOR_CLONES: compile a hot loop three times (AVX-512, AVX2 + FMA, the baseline) and pick
// one at load time by the CPU, so the loops use the widest registers there are without building the
// whole engine for one CPU. GCC on x86-64 only; elsewhere a plain function.
// Not under ThreadSanitizer: the clones' ifunc resolver runs while the dynamic loader relocates the
// program, before the TSan runtime is set up, and its instrumented entry crashes the process there.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define AMPSCOPE_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define AMPSCOPE_VECTOR_CLONES
#endif

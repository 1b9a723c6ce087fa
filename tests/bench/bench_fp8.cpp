// ampscope_bench_fp8: the cost of the FP8/microscaling emulation, printed as ratios (no pass/fail):
// - per model, the mean step time of each quantised mode over FP32's (one mode per Comparison, one
//   intra-op thread, instruments at step 1 only, 20 warm-up steps then 100 timed ones), as wall time and
//   as the thread's CPU time (what a quiet machine's wall time would be: a shared machine's other work
//   inflates the wall time, not the CPU time, since the step runs on this one thread);
// - the element quantiser's throughput against a plain float32 copy of the same data.
// `ampscope_bench_fp8 MODEL MODE [STEPS]` runs only that mode's steps (1000 unless given) and prints
// their mean time: a run to profile (perf record) one mode without the others around it.
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/config_schema.h"
#include "fp8/element_quantizer.h"

namespace {

using namespace ampscope;
using Clock = std::chrono::steady_clock;

double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

struct StepTime {
  double wall = 0;
  double cpu = 0;
};

StepTime msPerStep(ModelKind model, PrecisionMode mode, int timedSteps = 100) {
  RunConfig config = presetFor(model);
  config.modes = {mode};
  config.steps = std::max(1000, 20 + timedSteps);
  config.instrumentEvery = static_cast<int64_t>(findConfigField("instrument-every")->max);
  Comparison comparison(config);
  for (int i = 0; i < 20; ++i) comparison.step();
  const auto start = Clock::now();
  const double cpuStart = threadCpuMs();
  const int kSteps = timedSteps;
  for (int i = 0; i < kSteps; ++i) comparison.step();
  return {std::chrono::duration<double, std::milli>(Clock::now() - start).count() / kSteps,
          (threadCpuMs() - cpuStart) / kSteps};
}

double nsPerElement(void (*body)(const std::vector<float>&, std::vector<float>&), const std::vector<float>& in,
                    std::vector<float>& out) {
  body(in, out);
  const auto start = Clock::now();
  constexpr int kRounds = 50;
  for (int i = 0; i < kRounds; ++i) body(in, out);
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / (kRounds * in.size());
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  if (argc == 3 || argc == 4) {
    const auto model = parseModel(argv[1]);
    const auto mode = parseMode(argv[2]);
    if (!model || !mode) {
      std::fprintf(stderr, "usage: ampscope_bench_fp8 [MODEL MODE [STEPS]]\n");
      return 2;
    }
    const StepTime t = msPerStep(*model, *mode, argc == 4 ? std::max(1, std::atoi(argv[3])) : 1000);
    std::printf("%s %s: %.3f ms/step (cpu %.3f)\n", argv[1], argv[2], t.wall, t.cpu);
    return 0;
  }
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::TinyTransformer}) {
    const StepTime fp32 = msPerStep(model, PrecisionMode::FP32);
    std::printf("%s: fp32 %.3f ms/step (cpu %.3f)\n", modelName(model).c_str(), fp32.wall, fp32.cpu);
    for (PrecisionMode mode :
         {PrecisionMode::Fp8Delayed, PrecisionMode::Fp8Current, PrecisionMode::MXFP8, PrecisionMode::NVFP4}) {
      const StepTime t = msPerStep(model, mode);
      std::printf("  %-12s %.3f ms/step  %.2fx fp32   cpu %.3f ms/step  %.2fx fp32\n", modeName(mode).c_str(), t.wall,
                  t.wall / fp32.wall, t.cpu, t.cpu / fp32.cpu);
    }
  }
  std::vector<float> in(1 << 22), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 2654435761u) % 100000) * 1e-3f - 50.0f;
  const double copy = nsPerElement([](const std::vector<float>& a, std::vector<float>& b) {
    std::copy(a.begin(), a.end(), b.begin());
  }, in, out);
  const double e4m3 = nsPerElement([](const std::vector<float>& a, std::vector<float>& b) {
    detail::fp8::quantize(a.data(), b.data(), static_cast<int64_t>(a.size()), QuantFormat::E4M3, 3.0f, 1.0f / 3.0f,
                          nullptr);
  }, in, out);
  const double counted = nsPerElement([](const std::vector<float>& a, std::vector<float>& b) {
    detail::fp8::QuantCounts counts;
    detail::fp8::quantize(a.data(), b.data(), static_cast<int64_t>(a.size()), QuantFormat::E5M2, 3.0f, 1.0f / 3.0f,
                          &counts);
  }, in, out);
  std::printf("quantiser: copy %.3f ns/element, E4M3 %.3f (%.2fx copy), E5M2 with counts %.3f (%.2fx copy)\n", copy,
              e4m3, e4m3 / copy, counted, counted / copy);
  return 0;
}

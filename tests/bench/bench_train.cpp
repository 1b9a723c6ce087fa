// ampscope_bench_train: one training step of the chapter's TinyMLP(128, 512, 10), batch 32, AdamW
// (lr 1e-3), per precision mode, through the public Comparison API with one mode per Comparison.
// Each mode runs twice: instruments on every step (instrumentEvery 1) and practically never.
// One intra-op thread, as TrainingRunner's default threadsPerMode and the Python reference.
#include <benchmark/benchmark.h>

#include <ATen/Parallel.h>

#include <cstdint>
#include <string>

#include "ampscope/engine/comparison.h"

namespace {

using namespace ampscope;

constexpr int64_t kWarmupSteps = 50;                   // as the Python reference
constexpr int64_t kNeverInstrument = 1'000'000'000;    // no instrumented step within a benchmark

void trainStep(benchmark::State& state, PrecisionMode mode, bool instrumented) {
  at::set_num_threads(1);
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {mode};
  config.optimizer = OptimizerKind::AdamW;
  config.lr = 1e-3;
  config.batchSize = 32;
  config.steps = 1'000'000'000;
  config.instrumentEvery = instrumented ? 1 : kNeverInstrument;
  Comparison comparison(config);
  for (int64_t i = 0; i < kWarmupSteps; ++i) comparison.step();

  double engineMs = 0;  // the step time the engine itself records, for comparison with wall time
  int64_t steps = 0;
  for (auto _ : state) {
    StepRecord record = comparison.step();
    if (record.modes.empty() || record.modes.front().diverged) {
      state.SkipWithError("the mode diverged; its steps would no longer train");
      break;
    }
    engineMs += record.modes.front().stepTimeMs;
    ++steps;
    benchmark::DoNotOptimize(record);
  }
  if (steps > 0) state.counters["engine_us"] = engineMs * 1000.0 / static_cast<double>(steps);
  const auto capabilities = comparison.capabilities();
  state.SetLabel(capabilities.empty() ? "" : (capabilities.front().native ? "native" : "emulated"));
}

}  // namespace

int main(int argc, char** argv) {
  for (PrecisionMode mode : allPrecisionModes()) {
    for (bool instrumented : {false, true}) {
      const std::string name =
          "train_step/" + modeName(mode) + (instrumented ? "/instrumented" : "/plain");
      benchmark::RegisterBenchmark(name.c_str(), trainStep, mode, instrumented)
          ->Unit(benchmark::kMicrosecond)
          ->MinTime(1.0);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

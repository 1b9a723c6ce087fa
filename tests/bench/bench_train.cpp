// ampscope_bench_train: one training step of the chapter's TinyMLP(128, 512, 10), batch 32, AdamW
// (lr 1e-3), per precision mode, through the public Comparison API with one mode per Comparison.
// Each mode runs three ways: instruments never (plain), at the preset's interval (everyN, N = 10:
// the amortized cost a user pays) and on every step (instrumented: the worst case).
// One intra-op thread, as TrainingRunner's default threadsPerMode and the Python reference.
//
// Beside them: train_step/<fp32|bf16-amp>/libtorch, the chapter's step in plain LibTorch C++ (what leaving
// the Python interpreter alone buys), and train_step/fp32/batch, the fresh batch the engine draws per step.
//
// `--rss=N1,N2` (instead of the benchmarks): trains TinyMLP in each mode, one Comparison per mode, and
// prints the process's resident set size after N1 and after N2 steps: memory that stays flat over many
// steps shows the same figure twice. `--modes=a,b,...` limits it to those modes (one process per mode
// lets a long run use every core). `--precision-path=native|emulated` forces the BF16 modes' path (the
// default, auto, takes what the apps take: the faster one, timed once per machine and cached in the
// user's cache folder, as the CLI and the GUI turn it on).
// `--share=W` (instead of the benchmarks): per mode, the instruments' share of the step measured within
// one process, immune to the drift between runs that a shared machine has: a plain and an
// instrumented Comparison take turns, 16 steps each (thread CPU time), over W windows; printed are the
// medians over the windows of both steps, of their ratio and of the share 1 - plain / instrumented.
#include <benchmark/benchmark.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/path_timing.h"
#include "autocast_scope.h"
#include "synthetic_data.h"

namespace {

using namespace ampscope;

constexpr int64_t kWarmupSteps = 50;                   // as the Python reference
// The schema's largest values: instruments only at step 1 (inside the warm-up), and a run that does not end
// within a benchmark.
int64_t schemaMax(const char* key) { return static_cast<int64_t>(findConfigField(key)->max); }
const int64_t kNeverInstrument = schemaMax("instrument-every");

std::unique_ptr<Comparison> warmComparison(const RunConfig& config) {
  auto comparison = std::make_unique<Comparison>(config);
  for (int64_t i = 0; i < kWarmupSteps; ++i) comparison->step();
  return comparison;
}

PrecisionPath precisionPath = PrecisionPath::Auto;

RunConfig benchConfig(PrecisionMode mode, int64_t instrumentEvery) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.precisionPath = precisionPath;
  config.modes = {mode};
  config.optimizer = OptimizerKind::AdamW;
  config.lr = 1e-3;
  config.batchSize = 32;
  config.steps = schemaMax("steps");
  config.instrumentEvery = instrumentEvery;
  // fp16-pure with AdamW's default eps diverges at step 1, as model.half() + AdamW does in PyTorch
  // (1e-8 rounds to 0 in FP16, and a zero gradient gives 0/0); 1e-4 is the usual FP16 choice.
  if (mode == PrecisionMode::FP16Pure) config.adamEps = 1e-4;
  return config;
}

// A warmed-up run of one mode that starts over from fresh weights when the mode diverges (fp16-pure's
// AdamW can: eps 1e-8 is 0 in FP16), since timing a diverged mode's empty steps would flatter it. The
// callers do not time the restarts; after three it gives up, as they would then dominate the run.
class RestartingRun {
 public:
  explicit RestartingRun(RunConfig config) : config_(std::move(config)), comparison_(warmComparison(config_)) {}
  // One step; false when the mode diverged in it.
  bool step(StepRecord& record) {
    record = comparison_->step();
    return !record.modes.empty() && !record.modes.front().diverged;
  }
  // Fresh weights after a diverged step; false (and nothing done) when it has restarted three times.
  bool restart() {
    if (restarts_ == 3) return false;
    ++restarts_;
    comparison_ = warmComparison(config_);
    return true;
  }
  bool divergedInWarmup() const { return comparison_->allDiverged(); }
  int restarts() const { return restarts_; }
  const char* path() const {
    const auto capabilities = comparison_->capabilities();
    return capabilities.empty() ? "?" : (capabilities.front().native ? "native" : "emulated");
  }

 private:
  RunConfig config_;
  std::unique_ptr<Comparison> comparison_;
  int restarts_ = 0;
};

void trainStep(benchmark::State& state, PrecisionMode mode, int64_t instrumentEvery) {
  at::set_num_threads(1);
  RestartingRun run(benchConfig(mode, instrumentEvery));
  if (run.divergedInWarmup()) {
    state.SkipWithError("the mode diverged during the warm-up steps");
    return;
  }

  double engineMs = 0;  // the step time the engine itself records, for comparison with wall time
  int64_t steps = 0;
  for (auto _ : state) {
    StepRecord record;
    if (!run.step(record)) {
      state.PauseTiming();
      const bool restarted = run.restart();
      state.ResumeTiming();
      if (!restarted) {
        state.SkipWithError("the mode keeps diverging; its steps would no longer train");
        break;
      }
      continue;
    }
    engineMs += record.modes.front().stepTimeMs;
    ++steps;
    benchmark::DoNotOptimize(record);
  }
  if (steps > 0) state.counters["engine_us"] = engineMs * 1000.0 / static_cast<double>(steps);
  state.counters["restarts"] = static_cast<double>(run.restarts());
  state.SetLabel(run.path());
}

// The chapter's step written straight against LibTorch, as python_reference_step.py writes it in Python:
// torch::nn modules, torch::optim::AdamW, zero_grad without set_to_none, one fixed batch, no engine and
// no instruments. The same ATen kernels, autograd and op-by-op optimizer as the Python step without the
// interpreter: its time over Python's is what leaving Python alone buys.
void libtorchStep(benchmark::State& state, bool bf16Autocast) {
  at::set_num_threads(1);
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(128, 512), torch::nn::GELU(), torch::nn::Linear(512, 10));
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(1e-3));
  const torch::Tensor inputs = torch::randn({32, 128});
  const torch::Tensor labels = torch::randint(10, {32});
  auto step = [&] {
    optimizer.zero_grad();
    torch::Tensor loss;
    if (bf16Autocast) {
      ampscope::detail::AutocastScope autocast(c10::DeviceType::CPU, torch::kBFloat16);
      loss = torch::nn::functional::cross_entropy(model->forward(inputs), labels);
    } else {
      loss = torch::nn::functional::cross_entropy(model->forward(inputs), labels);
    }
    loss.backward();
    optimizer.step();
    return loss.item<float>();  // the Python step reads its loss too
  };
  for (int64_t i = 0; i < kWarmupSteps; ++i) step();
  for (auto _ : state) benchmark::DoNotOptimize(step());
  state.SetLabel("libtorch");
}

// The engine draws a fresh batch every step (SyntheticData::batch: randn, the teacher's matmul, argmax);
// the chapter's timed step reuses one. This is that part of train_step, to set the two side by side.
void batchOnly(benchmark::State& state) {
  at::set_num_threads(1);
  const ampscope::detail::SyntheticData data(ModelKind::TinyMLP, /*seed=*/0, /*batchSize=*/32);
  int64_t step = 1;
  for (auto _ : state) benchmark::DoNotOptimize(data.batch(step++));
  state.SetLabel("engine");
}

// VmRSS of /proc/self/status, in KiB (0 where there is none).
int64_t residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

int reportResidentSize(int64_t first, int64_t second, const std::vector<PrecisionMode>& modes) {
  at::set_num_threads(1);
  std::printf("resident set size of the process (KiB) after N steps of TinyMLP, one mode at a time\n");
  std::printf("%-18s %12s %12s %10s\n", "mode", std::to_string(first).c_str(), std::to_string(second).c_str(),
              "growth");
  for (PrecisionMode mode : modes) {
    RunConfig config = presetFor(ModelKind::TinyMLP);
    config.modes = {mode};
    config.precisionPath = precisionPath;
    config.steps = schemaMax("steps");
    if (mode == PrecisionMode::FP16Pure) config.adamEps = 1e-4;  // see benchConfig
    auto comparison = std::make_unique<Comparison>(config);
    int64_t atFirst = 0;
    for (int64_t step = 1; step <= second; ++step) {
      comparison->step();
      if (step == first) atFirst = residentKiB();
    }
    const int64_t atSecond = residentKiB();
    std::printf("%-18s %12lld %12lld %10lld\n", modeName(mode).c_str(), static_cast<long long>(atFirst),
                static_cast<long long>(atSecond), static_cast<long long>(atSecond - atFirst));
    std::fflush(stdout);
  }
  return 0;
}

double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

int reportInstrumentShare(int64_t windows, const std::vector<PrecisionMode>& modes) {
  at::set_num_threads(1);
  constexpr int kStepsPerTurn = 16;
  std::printf("instruments' share within one process: %lld windows of %d plain and %d instrumented steps "
              "(thread CPU time, medians over windows)\n",
              static_cast<long long>(windows), kStepsPerTurn, kStepsPerTurn);
  std::printf("%-18s %-9s %10s %10s %8s %8s\n", "mode", "path", "plain us", "instr us", "ratio", "share");
  for (PrecisionMode mode : modes) {
    RestartingRun turns[2] = {RestartingRun(benchConfig(mode, kNeverInstrument)),
                              RestartingRun(benchConfig(mode, 1))};
    std::vector<double> plain, instrumented, ratio, share;
    bool failed = false;
    for (int64_t w = 0; w < windows && !failed; ++w) {
      double us[2] = {0, 0};
      for (int k = 0; k < 2 && !failed; ++k) {
        const int which = (w % 2 == 0) ? k : 1 - k;  // alternate the order: a trend within a window cancels
        for (;;) {  // a turn in which the mode diverged is run again after an untimed restart
          const double start = threadCpuSeconds();
          bool trained = true;
          StepRecord record;
          for (int i = 0; i < kStepsPerTurn && trained; ++i) trained = turns[which].step(record);
          if (trained) {
            us[which] = (threadCpuSeconds() - start) * 1e6 / kStepsPerTurn;
            break;
          }
          if (!turns[which].restart()) {
            failed = true;
            break;
          }
        }
      }
      plain.push_back(us[0]);
      instrumented.push_back(us[1]);
      ratio.push_back(us[1] / us[0]);
      share.push_back(1.0 - us[0] / us[1]);
    }
    const char* path = turns[1].path();
    if (failed) {
      std::printf("%-18s %-9s the mode keeps diverging\n", modeName(mode).c_str(), path);
    } else {
      std::printf("%-18s %-9s %10.1f %10.1f %8.3f %7.1f%%\n", modeName(mode).c_str(), path, median(plain),
                  median(instrumented), median(ratio), 100.0 * median(share));
    }
    std::fflush(stdout);
  }
  return 0;
}

// `--modes=...` / `--precision-path=...` through the schema's own parser (config_schema.h), into
// `flags`; false with the schema's message on stderr.
bool setFlag(RunConfig& flags, const char* key, const std::string& text) {
  if (const auto error = setFieldText(flags, *findConfigField(key), text)) {
    std::cerr << "ampscope_bench_train: --" << error->field << ": " << error->message << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long long first = 0, second = 0, windows = 0;
  bool residentSize = false;
  RunConfig flags;
  flags.modes = allPrecisionModes();
  int kept = 1;  // argv without our own flags, for Google Benchmark's parser
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--rss=", 0) == 0) {
      if (std::sscanf(argv[i], "--rss=%lld,%lld", &first, &second) != 2 || first < 1 || second <= first) {
        std::cerr << "ampscope_bench_train: --rss=N1,N2 needs 1 <= N1 < N2\n";
        return 2;
      }
      residentSize = true;
    } else if (arg.rfind("--share=", 0) == 0) {
      char tail = 0;
      if (std::sscanf(argv[i], "--share=%lld%c", &windows, &tail) != 1 || windows < 1 || windows > 100000) {
        std::cerr << "ampscope_bench_train: --share=W needs a whole number of windows in [1, 100000]\n";
        return 2;
      }
    } else if (arg.rfind("--precision-path=", 0) == 0) {
      if (!setFlag(flags, "precision-path", arg.substr(17))) return 2;
    } else if (arg.rfind("--modes=", 0) == 0) {
      if (!setFlag(flags, "modes", arg.substr(8))) return 2;
    } else {
      argv[kept++] = argv[i];
    }
  }
  precisionPath = flags.precisionPath;
  const std::vector<PrecisionMode> modes = flags.modes;
  enablePathTiming({defaultPathTimingFile(), nullptr});
  if (residentSize) return reportResidentSize(first, second, modes);
  if (windows > 0) return reportInstrumentShare(windows, modes);
  argc = kept;
  const int64_t presetInterval = presetFor(ModelKind::TinyMLP).instrumentEvery;
  const struct {
    std::string kind;
    int64_t every;
  } variants[] = {{"plain", kNeverInstrument},
                  {"every" + std::to_string(presetInterval), presetInterval},
                  {"instrumented", 1}};
  for (PrecisionMode mode : modes) {
    for (const auto& variant : variants) {
      const std::string name = "train_step/" + modeName(mode) + "/" + variant.kind;
      benchmark::RegisterBenchmark(name.c_str(), trainStep, mode, variant.every)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RegisterBenchmark("train_step/fp32/libtorch", libtorchStep, false)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("train_step/bf16-amp/libtorch", libtorchStep, true)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("train_step/fp32/batch", batchOnly)->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

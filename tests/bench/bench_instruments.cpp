// ampscope_bench_instruments: the instruments' passes over one step's worth of gradient-like float32
// values (TinyMLP's 71,178 parameters; normal values spread over 16 binades around 1e-4, so several
// format thresholds fall inside occupied exponent fields, as they do in training), in ns per value.
// The histogram builder alone, and the scaled + unscaled pair that a scaled mode builds from one read.
// roundCounted/<format>: a rounding point's pass, rounding with and without its counts in turns within
// each iteration, printed as both times and their ratio.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "exponent_histogram_builder.h"

namespace {

using namespace ampscope;
using namespace ampscope::detail;

constexpr int64_t kTinyMlpParameters = 128 * 512 + 512 + 512 * 10 + 10;

std::vector<float> gradientLike(int64_t n) {
  std::mt19937 random(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (float& v : values) v = normal(random) * 1e-4f * std::exp2(static_cast<float>(random() % 16) - 8.0f);
  return values;
}

void perValue(benchmark::State& state, int64_t n) {
  state.counters["ns_per_value"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The histogram builder over `values`, once per iteration.
void timeHistogram(benchmark::State& state, const std::vector<float>& values) {
  const auto n = static_cast<int64_t>(values.size());
  for (auto _ : state) {
    ExponentHistogram h;
    accumulateHistogram(values.data(), n, 1.0f, LowFormat::FP16, h);
    benchmark::DoNotOptimize(h);
  }
  perValue(state, n);
}

// Normal values of one scale, as one layer's gradients are.
std::vector<float> oneScale(int64_t n) {
  std::mt19937 random(1);
  std::normal_distribution<float> normal(0.0f, 1e-4f);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (float& v : values) v = normal(random);
  return values;
}

void histogram(benchmark::State& state) { timeHistogram(state, gradientLike(kTinyMlpParameters)); }

// One layer's gradients as training makes them: normal values of one scale, whose blocks of 8192 span
// 14 to 18 exponent fields (11 to 18 in blocks of 2048), against the 16 binades of scales above.
void histogramOfOneScale(benchmark::State& state) { timeHistogram(state, oneScale(kTinyMlpParameters)); }

// The same, rounded to FP16 first, as an emulated mode's activation gradients are: a power of two about
// every 1024 values, so the thresholds at powers of two need counting in most blocks.
void histogramOfFp16Values(benchmark::State& state) {
  std::vector<float> values = oneScale(kTinyMlpParameters);
  roundToFormat(values.data(), values.data(), kTinyMlpParameters, LowFormat::FP16, nullptr);
  timeHistogram(state, values);
}

// The same values with a third of them zero, as a ReLU network's gradients have them (dead units give
// whole rows of zero weight gradient): zeros occupy exponent field 0, where BF16's thresholds lie.
void histogramWithZeros(benchmark::State& state) {
  std::vector<float> values = gradientLike(kTinyMlpParameters);
  for (std::size_t i = 0; i < values.size(); i += 3) values[i] = 0.0f;
  timeHistogram(state, values);
}

void scaledPair(benchmark::State& state) {
  const std::vector<float> values = gradientLike(kTinyMlpParameters);
  for (auto _ : state) {
    ExponentHistogram asIs, unscaled;
    accumulateHistogramPair(values.data(), kTinyMlpParameters, 1.0f / 65536, LowFormat::FP16, asIs, unscaled);
    benchmark::DoNotOptimize(asIs);
    benchmark::DoNotOptimize(unscaled);
  }
  perValue(state, kTinyMlpParameters);
}

// One instrumented fp32 TinyMLP step's calls, as the trainer makes them: a histogram per parameter
// gradient (fc1.weight, fc1.bias, fc2.weight, fc2.bias) and per tapped activation gradient (batch 32 of
// fc1's 512 and fc2's 10 outputs). The fixed cost of a call shows against the single large call above.
void perTensor(benchmark::State& state) {
  const int64_t sizes[] = {128 * 512, 512, 512 * 10, 10, 32 * 512, 32 * 10};
  int64_t total = 0;
  for (int64_t size : sizes) total += size;
  const std::vector<float> values = gradientLike(total);
  for (auto _ : state) {
    const float* at = values.data();
    for (int64_t size : sizes) {
      ExponentHistogram h;
      accumulateHistogram(at, size, 1.0f, LowFormat::FP16, h);
      benchmark::DoNotOptimize(h);
      at += size;
    }
  }
  perValue(state, total);
}

// Normal values whose exponents spread evenly over state.range(0) binades from 2^-30 up: each block of
// 8192 spans about that many exponent fields. Where the builder switches from compares over the field
// bytes (narrow blocks) to an increment per value shows as the step between two spans.
void histogramOfSpan(benchmark::State& state) {
  const auto span = static_cast<uint32_t>(state.range(0));
  std::mt19937 random(1);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::vector<float> values(static_cast<std::size_t>(kTinyMlpParameters));
  for (float& v : values) v = std::ldexp(mantissa(random), -30 + static_cast<int>(random() % span));
  timeHistogram(state, values);
}

void tenValues(benchmark::State& state) {
  const std::vector<float> values = gradientLike(10);
  for (auto _ : state) {
    ExponentHistogram h;
    accumulateHistogram(values.data(), 10, 1.0f, LowFormat::FP16, h);
    benchmark::DoNotOptimize(h);
  }
}

// What counting costs a rounding point: the same values rounded without and with RoundingCounts,
// alternately; in place (as the models round what they just computed) or apart (as a cast is).
void roundCounted(benchmark::State& state, LowFormat format, bool inPlace) {
  const std::vector<float> values = gradientLike(kTinyMlpParameters);
  std::vector<float> work(values.size()), rounded(values.size());
  using Clock = std::chrono::steady_clock;
  Clock::duration plain{}, counted{};
  for (auto _ : state) {
    for (int counting = 0; counting < 2; ++counting) {
      std::copy(values.begin(), values.end(), work.begin());
      RoundingCounts counts;
      const Clock::time_point start = Clock::now();
      roundToFormat(work.data(), inPlace ? work.data() : rounded.data(), kTinyMlpParameters, format,
                    counting ? &counts : nullptr);
      (counting ? counted : plain) += Clock::now() - start;
      benchmark::DoNotOptimize(counts);
      benchmark::DoNotOptimize(work.data());
      benchmark::DoNotOptimize(rounded.data());
    }
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["plain_us"] = std::chrono::duration<double, std::micro>(plain).count() / iterations;
  state.counters["counted_us"] = std::chrono::duration<double, std::micro>(counted).count() / iterations;
  state.counters["counted/plain"] = std::chrono::duration<double>(counted) / std::chrono::duration<double>(plain);
}

BENCHMARK(histogram)->Unit(benchmark::kMicrosecond);
BENCHMARK(histogramOfOneScale)->Unit(benchmark::kMicrosecond);
BENCHMARK(histogramOfFp16Values)->Unit(benchmark::kMicrosecond);
BENCHMARK(histogramWithZeros)->Unit(benchmark::kMicrosecond);
BENCHMARK(perTensor)->Unit(benchmark::kMicrosecond);
BENCHMARK(histogramOfSpan)->Arg(8)->Arg(16)->Arg(24)->Arg(32)->Arg(40)->Arg(48)->Unit(benchmark::kMicrosecond);
BENCHMARK(tenValues)->Unit(benchmark::kMicrosecond);
BENCHMARK(scaledPair)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(roundCounted, fp16, LowFormat::FP16, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(roundCounted, bf16, LowFormat::BF16, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(roundCounted, fp16-apart, LowFormat::FP16, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(roundCounted, bf16-apart, LowFormat::BF16, false)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

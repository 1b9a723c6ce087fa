// ampscope_gemm_bench: the GEMMs of the three models (forward and both backward GEMMs of each linear
// and attention matmul, batches as the presets), in FP32 on one thread, as achieved GFLOP/s and as a
// share of the single-thread peak of the BLAS's sgemm on a large square GEMM (measured first). Each
// layer is also run in the layout alternatives, to see whether any buys time:
//   linear      torch::linear(x, W, b): what PrecisionContext::linear runs (addmm on W's transposed view)
//   mm+add      x.mm(W^T) then + b: the bias as its own pass
//   addmm-Wt    addmm(b, x, Wt) with Wt = W^T stored contiguous [in, out] (a weight kept transposed)
//   linear-3d   (Transformer only) torch::linear on the [batch, time, d] activation, as the model calls it
// Backward: dX = dY.W ("dX", or dY.Wt^T with the transposed weight) and dW = dY^T.X ("dW", or
// dWt = X^T.dY). FLOPs count 2*M*N*K per GEMM (the bias add is not counted). Rates are per CPU second
// of the benchmark thread (Google Benchmark's rate counters use CPU time too).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using Sgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha, const float* a,
                       int lda, const float* b, int ldb, float beta, float* c, int ldc);
constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;

double gPeakGflops = 0;

// The calling thread's CPU time: on a shared machine, waiting for a core does not count.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The BLAS behind LibTorch (libblas.so.3: OpenBLAS on Debian) on a 1024^3 GEMM, one thread, best of
// several runs over about half a second of CPU time.
double measurePeak() {
  auto sgemm = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
  const int n = 1024;
  torch::Tensor a = torch::randn({n, n});
  torch::Tensor b = torch::randn({n, n});
  torch::Tensor c = torch::zeros({n, n});
  double best = 1e300;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
  for (int i = 0; i < 3 || std::chrono::steady_clock::now() < until; ++i) {
    const double start = cpuSeconds();
    if (sgemm) {
      sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a.data_ptr<float>(), n, b.data_ptr<float>(), n, 0.0f,
            c.data_ptr<float>(), n);
    } else {
      at::mm_out(c, a, b);
    }
    best = std::min(best, cpuSeconds() - start);
  }
  std::printf("peak: %s sgemm 1024^3 on one thread: %.1f GFLOP/s\n", sgemm ? "cblas" : "at::mm",
              2.0 * n * n * n / best * 1e-9);
  return 2.0 * n * n * n / best * 1e-9;
}

struct Layer {
  std::string model;
  std::string name;
  int64_t rows;  // batch (times time steps for the Transformer)
  int64_t in;
  int64_t out;
  int64_t time = 0;  // > 0: the Transformer's [rows/time, time, in] activation
};

struct BatchedMatmul {
  std::string name;
  int64_t batch, m, k, n;  // [batch, m, k] x [batch, k, n]
};

void setRate(benchmark::State& state, double flopsPerIteration) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flopsPerIteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void addPeakShare(benchmark::State& state, double flopsPerIteration, double seconds) {
  if (gPeakGflops > 0 && seconds > 0) {
    const double gflops = flopsPerIteration * static_cast<double>(state.iterations()) / seconds * 1e-9;
    state.counters["%peak"] = 100.0 * gflops / gPeakGflops;
  }
}

template <typename F>
void run(benchmark::State& state, double flops, F&& body) {
  at::set_num_threads(1);
  const double start = cpuSeconds();
  for (auto _ : state) benchmark::DoNotOptimize(body());
  const double seconds = cpuSeconds() - start;
  setRate(state, flops);
  addPeakShare(state, flops, seconds);
}

void registerLayer(const Layer& l) {
  const double flops = 2.0 * static_cast<double>(l.rows * l.in * l.out);
  const std::string base = l.model + "/" + l.name + "/" + std::to_string(l.rows) + "x" + std::to_string(l.in) +
                           "->" + std::to_string(l.out) + "/";
  benchmark::RegisterBenchmark((base + "fwd:linear").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor x = torch::randn({l.rows, l.in});
    const torch::Tensor w = torch::randn({l.out, l.in});
    const torch::Tensor b = torch::randn({l.out});
    run(state, flops, [&] { return torch::linear(x, w, b); });
  });
  if (l.time > 0) {
    benchmark::RegisterBenchmark((base + "fwd:linear-3d").c_str(), [l, flops](benchmark::State& state) {
      torch::NoGradGuard noGrad;
      const torch::Tensor x = torch::randn({l.rows / l.time, l.time, l.in});
      const torch::Tensor w = torch::randn({l.out, l.in});
      const torch::Tensor b = torch::randn({l.out});
      run(state, flops, [&] { return torch::linear(x, w, b); });
    });
  }
  benchmark::RegisterBenchmark((base + "fwd:mm+add").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor x = torch::randn({l.rows, l.in});
    const torch::Tensor w = torch::randn({l.out, l.in});
    const torch::Tensor b = torch::randn({l.out});
    run(state, flops, [&] { return x.mm(w.t()) + b; });
  });
  benchmark::RegisterBenchmark((base + "fwd:addmm-Wt").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor x = torch::randn({l.rows, l.in});
    const torch::Tensor wt = torch::randn({l.in, l.out});
    const torch::Tensor b = torch::randn({l.out});
    run(state, flops, [&] { return torch::addmm(b, x, wt); });
  });
  benchmark::RegisterBenchmark((base + "dX:W").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor dy = torch::randn({l.rows, l.out});
    const torch::Tensor w = torch::randn({l.out, l.in});
    run(state, flops, [&] { return dy.mm(w); });
  });
  benchmark::RegisterBenchmark((base + "dX:Wt").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor dy = torch::randn({l.rows, l.out});
    const torch::Tensor wt = torch::randn({l.in, l.out});
    run(state, flops, [&] { return dy.mm(wt.t()); });
  });
  benchmark::RegisterBenchmark((base + "dW:W").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor dy = torch::randn({l.rows, l.out});
    const torch::Tensor x = torch::randn({l.rows, l.in});
    run(state, flops, [&] { return dy.t().mm(x); });
  });
  benchmark::RegisterBenchmark((base + "dW:Wt").c_str(), [l, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor dy = torch::randn({l.rows, l.out});
    const torch::Tensor x = torch::randn({l.rows, l.in});
    run(state, flops, [&] { return x.t().mm(dy); });
  });
}

// Attention's Q.K^T and P.V, and their two backward GEMMs each (dA = dC.B^T, dB = A^T.dC).
void registerBatched(const BatchedMatmul& g) {
  const double flops = 2.0 * static_cast<double>(g.batch * g.m * g.k * g.n);
  const std::string base = "tiny-transformer/" + g.name + "/" + std::to_string(g.batch) + "x[" +
                           std::to_string(g.m) + "x" + std::to_string(g.k) + "].[" + std::to_string(g.k) + "x" +
                           std::to_string(g.n) + "]/";
  benchmark::RegisterBenchmark((base + "fwd:matmul").c_str(), [g, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor a = torch::randn({g.batch, g.m, g.k});
    const torch::Tensor b = torch::randn({g.batch, g.k, g.n});
    run(state, flops, [&] { return torch::matmul(a, b); });
  });
  benchmark::RegisterBenchmark((base + "dA").c_str(), [g, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor dc = torch::randn({g.batch, g.m, g.n});
    const torch::Tensor b = torch::randn({g.batch, g.k, g.n});
    run(state, flops, [&] { return torch::bmm(dc, b.transpose(1, 2)); });
  });
  benchmark::RegisterBenchmark((base + "dB").c_str(), [g, flops](benchmark::State& state) {
    torch::NoGradGuard noGrad;
    const torch::Tensor a = torch::randn({g.batch, g.m, g.k});
    const torch::Tensor dc = torch::randn({g.batch, g.m, g.n});
    run(state, flops, [&] { return torch::bmm(a.transpose(1, 2), dc); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  using SetThreads = void (*)(int);
  if (auto* setBlasThreads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    setBlasThreads(1);
  }
  torch::manual_seed(0);
  gPeakGflops = measurePeak();
  // The presets' batches (run_config.cpp): TinyMLP 32, deep MLP 64, Transformer 16 sequences of 32.
  const std::vector<Layer> layers = {
      {"tiny-mlp", "fc1", 32, 128, 512},
      {"tiny-mlp", "fc2", 32, 512, 10},
      {"deep-mlp", "fc1", 64, 128, 256},
      {"deep-mlp", "fc2-4", 64, 256, 256},
      {"deep-mlp", "fc5", 64, 256, 10},
      {"tiny-transformer", "attn.qkv", 16 * 32, 32, 96, 32},
      {"tiny-transformer", "attn.proj", 16 * 32, 32, 32, 32},
      {"tiny-transformer", "mlp.fc1", 16 * 32, 32, 128, 32},
      {"tiny-transformer", "mlp.fc2", 16 * 32, 128, 32, 32},
      {"tiny-transformer", "head", 16 * 32, 32, 13, 32},
  };
  for (const Layer& l : layers) registerLayer(l);
  // Two heads of 16 dimensions: batch 16 x 2 heads.
  registerBatched({"attn.scores", 32, 32, 16, 32});
  registerBatched({"attn.context", 32, 32, 32, 16});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

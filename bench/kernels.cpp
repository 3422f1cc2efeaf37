// Micro-benchmarks of the hand-written CPU kernels against the LibTorch operations they replace,
// in the same process on the same inputs: the tutorial model's two Conv1D/ReLU/MaxPool1D blocks,
// its Dense and Embedding layers (forward and backward), the fused Nadam update over its 332,856
// parameters, one of its matrix products and a 1024-cube product (the GEMM peak). Prints Google Benchmark's table, then the ratio
// LibTorch time / kernel time for each pair (above 1: the kernel is faster).
//
//   build/bench/kernel_bench [--threads N] [Google Benchmark flags, e.g. --benchmark_filter=Conv]
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "mirror/model/conv_kernels.h"
#include "mirror/model/cpu_gemm.h"
#include "mirror/model/dense_kernel.h"
#include "mirror/model/embedding_kernel.h"
#include "mirror/optim/optimizer.h"
#include "mirror/util/threads.h"

namespace {
namespace F = torch::nn::functional;
using mirror::Conv1dBlock;

// The tutorial's blocks: (steps in, channels in, filters, kernel); ReLU, then pooling by 2.
struct BlockShape {
  int64_t steps, in_c, out_c, kernel;
};
constexpr BlockShape kConv1{300, 7, 64, 5};
constexpr BlockShape kConv2{148, 64, 32, 3};

// LibTorch's way, as build_model(..., cpu_kernels=false) lays it out: channels first in between.
torch::Tensor libtorch_block(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  auto h = F::conv1d(x.permute({0, 2, 1}), w, F::Conv1dFuncOptions().bias(b));
  return F::max_pool1d(torch::relu(h), F::MaxPool1dFuncOptions(2).stride(2)).permute({0, 2, 1});
}

// Untimed first iterations: oneDNN compiles its kernels and the allocator fills on the first ones.
template <typename Step>
void warm_up(Step& step) {
  for (int i = 0; i < 3; ++i) step();
}

// Times forward() and its backward from gradient g, the gradients of `leaves` cleared each time;
// items processed are the batch (the benchmark's argument).
template <typename Forward>
void time_backward(benchmark::State& state, Forward&& forward, const torch::Tensor& g,
                   std::vector<torch::Tensor> leaves) {
  auto step = [&] {
    forward().backward(g);
    for (auto& t : leaves) t.mutable_grad().reset();
  };
  warm_up(step);
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <bool kKernel>
void conv_block(benchmark::State& state, BlockShape s) {
  const int64_t batch = state.range(0);
  torch::manual_seed(1);
  auto x = torch::randn({batch, s.steps, s.in_c}).requires_grad_(true);
  auto w = (torch::randn({s.out_c, s.in_c, s.kernel}) * 0.1).requires_grad_(true);
  auto b = torch::zeros({s.out_c}).requires_grad_(true);
  Conv1dBlock k;
  k.kernel = s.kernel;
  k.relu = true;
  k.pool = k.pool_stride = 2;
  auto g = torch::randn({batch, k.out_steps(s.steps), s.out_c});
  time_backward(
      state, [&] { return kKernel ? mirror::conv1d_block(x, w, b, k) : libtorch_block(x, w, b); }, g, {x, w, b});
}

template <bool kKernel>
void dense(benchmark::State& state) {
  const int64_t batch = state.range(0);
  torch::manual_seed(2);
  auto x = torch::randn({batch, 2336}).requires_grad_(true);
  auto w = (torch::randn({46, 2336}) * 0.02).requires_grad_(true);
  auto b = torch::zeros({46}).requires_grad_(true);
  auto g = torch::randn({batch, 46});
  time_backward(state, [&] { return kKernel ? mirror::dense(x, w, b) : F::linear(x, w, b); }, g, {x, w, b});
}

template <bool kKernel>
void embedding(benchmark::State& state) {
  const int64_t batch = state.range(0);
  torch::manual_seed(3);
  auto w = torch::randn({30979, 7}).requires_grad_(true);
  auto ids = torch::randint(0, 30979, {batch, 300}, torch::kInt64);
  auto g = torch::randn({batch, 300, 7});
  time_backward(state, [&] { return kKernel ? mirror::embedding_lookup(ids, w) : torch::embedding(w, ids); }, g, {w});
}

// Nadam over the tutorial's 332,856 parameters: the fused pass on a contiguous buffer, and
// LibTorch's operations (what a strided buffer gets) on every other element of a twice-as-long one.
template <bool kKernel>
void nadam(benchmark::State& state) {
  constexpr int64_t kParameters = 332856;
  mirror::OptimizerConfig cfg;
  cfg.name = "nadam";
  torch::manual_seed(4);
  auto storage = torch::randn({kKernel ? kParameters : 2 * kParameters});
  auto params = kKernel ? storage : storage.slice(0, 0, 2 * kParameters, 2);
  auto grads = torch::randn({kParameters}) * 0.01;
  auto opt = mirror::make_optimizer(cfg, params);
  auto step = [&] { opt->step(params, grads); };
  warm_up(step);
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * kParameters);
}

// The first block's largest product at the given batch: (batch·296, 35) x (35, 64).
template <bool kKernel>
void gemm(benchmark::State& state) {
  const int64_t rows = state.range(0) * 296;
  auto a = torch::randn({rows, 35}), b = torch::randn({35, 64}), c = torch::empty({rows, 64});
  auto step = [&] {
    if (kKernel) mirror::cpu_gemm::mm_into(c, a, b, false);
    else at::mm_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr<float>());
  };
  warm_up(step);
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * 2 * rows * 35 * 64);  // FLOPs
}

// A 1024x1024x1024 product: the machine's GEMM peak on each library (bench/reuters_throughput.py
// reads the kernel's figure for its fraction of peak).
template <bool kKernel>
void gemm_1024(benchmark::State& state) {
  constexpr int64_t n = 1024;
  auto a = torch::randn({n, n}), b = torch::randn({n, n}), c = torch::empty({n, n});
  auto step = [&] {
    if (kKernel) mirror::cpu_gemm::mm_into(c, a, b, false);
    else at::mm_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr<float>());
  };
  warm_up(step);
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);  // FLOPs
}

void register_pair(const std::string& name, void (*kernel)(benchmark::State&), void (*reference)(benchmark::State&),
                   bool batches) {
  auto* k = benchmark::RegisterBenchmark((name + "/kernel").c_str(), kernel);
  auto* r = benchmark::RegisterBenchmark((name + "/libtorch").c_str(), reference);
  for (auto* bm : {k, r}) {
    bm->Unit(benchmark::kMillisecond);
    if (batches) bm->Arg(32)->Arg(256);
  }
}

// Console output as usual, and each run's time kept by name for the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs)
      if (run.run_type == Run::RT_Iteration && run.error_occurred == false)
        seconds_[run.benchmark_name()] = run.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratios() const {
    fmt::print("\nratio LibTorch / kernel (time per iteration; above 1: the kernel is faster)\n");
    for (const auto& [name, t] : seconds_) {
      const auto at = name.find("/kernel");
      if (at == std::string::npos) continue;
      std::string reference = name;
      reference.replace(at, std::strlen("/kernel"), "/libtorch");
      const auto it = seconds_.find(reference);
      if (it == seconds_.end() || t <= 0) continue;
      fmt::print("  {:<32} {:6.2f}x\n", name.substr(0, at) + name.substr(at + std::strlen("/kernel")),
                 it->second / t);
    }
  }

 private:
  std::map<std::string, double> seconds_;
};
}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--threads") == 0) {
      threads = std::max(1, std::atoi(argv[i + 1]));
      for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];  // hand the rest to Google Benchmark
      argc -= 2;
      break;
    }
  mirror::apply_thread_budget(threads);
  fmt::print("{} thread(s); LibTorch's products on {}, the kernels' on {}\n", threads, mirror::blas_vendor(),
             mirror::cpu_gemm::library());
  register_pair("conv1_block", [](benchmark::State& s) { conv_block<true>(s, kConv1); },
                [](benchmark::State& s) { conv_block<false>(s, kConv1); }, true);
  register_pair("conv2_block", [](benchmark::State& s) { conv_block<true>(s, kConv2); },
                [](benchmark::State& s) { conv_block<false>(s, kConv2); }, true);
  register_pair("dense", dense<true>, dense<false>, true);
  register_pair("embedding", embedding<true>, embedding<false>, true);
  register_pair("nadam_332856", nadam<true>, nadam<false>, false);
  register_pair("gemm_conv1", gemm<true>, gemm<false>, true);
  register_pair("gemm_1024", gemm_1024<true>, gemm_1024<false>, false);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}

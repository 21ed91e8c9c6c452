// Cold vs. warm compile of a small freestanding kernel through the core's JIT
// service: in-process Clang (cold), the on-disk object cache (warm), and the
// ORC link that both pay. Prints medians; asserts nothing.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "pypto/jit/cxx_compiler.h"
#include "pypto/jit/jit_session.h"

namespace {

using pypto::jit::CompiledObject;
using pypto::jit::CompileOptions;
using pypto::jit::CxxCompiler;
using pypto::jit::JitSession;

// A 15-line kernel in the style of the tile ISA: templates, static shapes, no
// standard headers.
const char* kFreestandingKernel = R"(
template <typename T, int N> struct Tile { T data[N]; };
template <typename T, int N>
inline void TADD(Tile<T, N>& d, const Tile<T, N>& a, const Tile<T, N>& b) {
  for (int i = 0; i < N; ++i) d.data[i] = a.data[i] + b.data[i];
}
template <typename T, int N>
inline void TEXP(Tile<T, N>& d, const Tile<T, N>& a) {
  for (int i = 0; i < N; ++i) d.data[i] = __builtin_expf(a.data[i]);
}
extern "C" void kernel_entry(float* out, const float* x, const float* y) {
  Tile<float, 256> a, b, c;
  for (int i = 0; i < 256; ++i) { a.data[i] = x[i]; b.data[i] = y[i]; }
  TADD(c, a, b); TEXP(c, c);
  for (int i = 0; i < 256; ++i) out[i] = c.data[i];
}
)";

const char* kHostedKernel = R"(
#include <cmath>
#include <cstdint>
extern "C" void kernel_entry(float* out, const float* x, const float* y) {
  for (int32_t i = 0; i < 256; ++i) out[i] = std::exp(x[i] + y[i]);
}
)";

double Milliseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  double compile_ms;
  double link_ms;
};

// Compiles `source` (the tag makes every cold run a different source, so no
// layer can reuse an earlier result) and links it into a fresh session.
Timing CompileAndLink(CxxCompiler& compiler, const std::string& source, const CompileOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  CompiledObject object = compiler.Compile(source, options);
  auto t1 = std::chrono::steady_clock::now();
  JitSession session;
  session.AddObject(object);
  auto* entry = session.LookupFunction<void(float*, const float*, const float*)>("kernel_entry");
  auto t2 = std::chrono::steady_clock::now();
  std::vector<float> x(256, 0.5f), y(256, 0.25f), out(256);
  entry(out.data(), x.data(), y.data());
  return {Milliseconds(t1 - t0), Milliseconds(t2 - t1)};
}

void Report(const char* label, const std::vector<Timing>& runs) {
  std::vector<double> compile, link, total;
  for (const auto& r : runs) {
    compile.push_back(r.compile_ms);
    link.push_back(r.link_ms);
    total.push_back(r.compile_ms + r.link_ms);
  }
  std::printf("%-34s %10.2f %10.2f %10.2f\n", label, Median(compile), Median(link), Median(total));
}

}  // namespace

int main() {
  constexpr int kRuns = 7;
  std::filesystem::path cache_dir =
      std::filesystem::temp_directory_path() / ("pypto-bench-jit-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache_dir);
  CompileOptions options;
  options.name = "bench_kernel.cpp";

  CxxCompiler uncached(std::nullopt);
  // The first compile of a process also pages in Clang and LLVM and registers the target.
  Timing first = CompileAndLink(uncached, kFreestandingKernel, options);

  std::vector<Timing> cold, cold_hosted, warm;
  for (int i = 0; i < kRuns; ++i) {
    std::string tag = "// run " + std::to_string(i) + "\n";
    cold.push_back(CompileAndLink(uncached, tag + kFreestandingKernel, options));
    cold_hosted.push_back(CompileAndLink(uncached, tag + kHostedKernel, options));
  }
  CxxCompiler cached(cache_dir);
  CompileAndLink(cached, kFreestandingKernel, options);
  CompileAndLink(cached, kHostedKernel, options);
  std::vector<Timing> warm_hosted;
  for (int i = 0; i < kRuns; ++i) {
    warm.push_back(CompileAndLink(cached, kFreestandingKernel, options));
    warm_hosted.push_back(CompileAndLink(cached, kHostedKernel, options));
  }

  std::printf("JIT compile of a 15-line kernel, median of %d runs (ms), -O3 -march=native\n", kRuns);
  std::printf("%-34s %10s %10s %10s\n", "", "compile", "ORC link", "total");
  Report("first in process, freestanding", {first});
  Report("cold, freestanding", cold);
  Report("cold, with <cmath> <cstdint>", cold_hosted);
  Report("warm (disk cache hit), freestanding", warm);
  Report("warm (disk cache hit), with <cmath>", warm_hosted);
  double cold_total = Median([&] {
    std::vector<double> v;
    for (const auto& r : cold) v.push_back(r.compile_ms + r.link_ms);
    return v;
  }());
  double warm_total = Median([&] {
    std::vector<double> v;
    for (const auto& r : warm) v.push_back(r.compile_ms + r.link_ms);
    return v;
  }());
  std::printf("cold / warm total: %.1fx   (cache hits: %d, compiles in the cached compiler: %d)\n",
              cold_total / warm_total, cached.stats().cache_hits, cached.stats().compiles);
  std::filesystem::remove_all(cache_dir);
  return 0;
}

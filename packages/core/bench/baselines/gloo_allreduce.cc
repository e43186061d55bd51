// Baseline: raw Gloo over TCP (ring allreduce, float32 sum), no engine: every rank is a process
// given <rank> <size> <store dir>. Prints BENCH {"bytes":..,"us":..} on rank 0 per size.
// Built and run by scripts/bench.mjs.
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <algorithm>
#include <vector>

#include "gloo_baseline.h"


#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const GlooBaseline b = ConnectGlooBaseline(argc, argv);
  const int rank = b.rank;
  const int size = b.size;
  const long min_bytes = b.min_bytes;
  const long max_bytes = b.max_bytes;
  const auto& context = b.context;
  // Out of place (a separate output), as Kolo's bench passes `output`; in place with
  // KOLO_BENCH_IN_PLACE=1, as Kolo's bench then does too.
  const char* place = std::getenv("KOLO_BENCH_IN_PLACE");
  const bool in_place = place != nullptr && std::string(place) == "1";
  using Fn = void (*)(void*, const void*, const void*, size_t);
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    std::vector<float> data(bytes / 4, static_cast<float>(rank + 1));
    std::vector<float> out(in_place ? 0 : bytes / 4, 0.0f);
    long iters = std::max(3L, std::min(2000L, (256L * 1024 * 1024) / bytes / 4));
    auto run = [&] {
      gloo::AllreduceOptions opts(context);
      if (!in_place) opts.setInput(data.data(), data.size());
      opts.setOutput(in_place ? data.data() : out.data(), data.size());
      opts.setReduceFunction(static_cast<Fn>(&gloo::sum<float>));
      gloo::allreduce(opts);
    };
    const double us = MedianMicros(b, iters, run);
    if (rank == 0) std::printf("BENCH {\"bytes\":%ld,\"us\":%.3f}\n", bytes, us);
  }
  return 0;
}

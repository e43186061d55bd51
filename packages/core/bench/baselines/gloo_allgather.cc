// Baseline: raw Gloo allgather over TCP (float32), no engine: every rank is a process given
// <rank> <size> <store dir> [min bytes] [max bytes]. size = total output bytes (each rank sends
// size/n in whole floats). Prints BENCH {"bytes":..,"us":..,"wrong":..} on rank 0 per size.
// Built and run by scripts/bench.mjs.
#include <gloo/allgather.h>
#include <gloo/barrier.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gloo_baseline.h"

int main(int argc, char** argv) {
  const GlooBaseline b = ConnectGlooBaseline(argc, argv);
  const int rank = b.rank;
  const int size = b.size;
  const long min_bytes = b.min_bytes;
  const long max_bytes = b.max_bytes;
  const auto& context = b.context;
  for (long step = min_bytes; step <= max_bytes; step *= 4) {
    const long per_rank = std::max(1L, step / 4 / size);
    const long bytes = per_rank * size * 4;
    std::vector<float> data(per_rank, static_cast<float>(rank + 1));
    std::vector<float> out(per_rank * size);
    long iters = std::max(5L, std::min(2000L, (256L * 1024 * 1024) / bytes / 4));
    auto run = [&] {
      gloo::AllgatherOptions opts(context);
      opts.setInput(data.data(), data.size());
      opts.setOutput(out.data(), out.size());
      gloo::allgather(opts);
    };
    const double us = MedianMicros(b, iters, run);
    long wrong = 0;
    for (long i = 0; i < static_cast<long>(out.size()); ++i) wrong += out[i] != static_cast<float>(i / per_rank + 1);
    if (rank == 0) std::printf("BENCH {\"bytes\":%ld,\"us\":%.3f,\"wrong\":%ld}\n", bytes, us, wrong);
  }
  return 0;
}

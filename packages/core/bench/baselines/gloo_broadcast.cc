// Baseline: raw Gloo broadcast over TCP (float32, root 0), no engine: every rank is a process
// given <rank> <size> <store dir> [min bytes] [max bytes]. Prints
// BENCH {"bytes":..,"us":..,"wrong":..} on rank 0 per size (wrong: rank 1's count, sent back
// over a second broadcast). Built and run by scripts/bench.mjs.
#include <gloo/barrier.h>
#include <gloo/broadcast.h>

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
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    std::vector<float> data(bytes / 4, rank == 0 ? 7.0f : 0.0f);
    long iters = std::max(5L, std::min(2000L, (256L * 1024 * 1024) / bytes / 4));
    auto run = [&] {
      gloo::BroadcastOptions opts(context);
      opts.setOutput(data.data(), data.size());
      opts.setRoot(0);
      gloo::broadcast(opts);
    };
    const double us = MedianMicros(b, iters, run);
    long wrong = 0;
    for (float v : data) wrong += v != 7.0f;
    long theirs = wrong;
    if (size > 1) {
      gloo::BroadcastOptions back(context);
      back.setOutput(&theirs, 1);
      back.setRoot(1);
      gloo::broadcast(back);
    }
    if (rank == 0) std::printf("BENCH {\"bytes\":%ld,\"us\":%.3f,\"wrong\":%ld}\n", bytes, us, wrong + theirs);
  }
  return 0;
}

// Shared by the raw-Gloo baselines: the command line <rank> <size> <store dir> [min bytes]
// [max bytes], a full-mesh TCP context on 127.0.0.1, rendezvoused through a file store, and the
// timing of one size.
#pragma once

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <gloo/barrier.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

struct GlooBaseline {
  int rank;
  int size;
  long min_bytes;
  long max_bytes;
  std::shared_ptr<gloo::rendezvous::Context> context;
};

inline GlooBaseline ConnectGlooBaseline(int argc, char** argv) {
  GlooBaseline b{std::atoi(argv[1]), std::atoi(argv[2]), argc > 4 ? std::atol(argv[4]) : 4096,
                 argc > 5 ? std::atol(argv[5]) : 64L * 1024 * 1024, nullptr};
  gloo::rendezvous::FileStore files(argv[3]);
  gloo::rendezvous::PrefixStore store("baseline", files);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  b.context = std::make_shared<gloo::rendezvous::Context>(b.rank, b.size);
  b.context->connectFullMesh(store, device);
  return b;
}

// Runs `run` 3 times, meets the other ranks at a barrier, then returns the median of `iters`
// timed runs in µs, like Kolo's bench: one preempted iteration on a shared machine does not
// move it.
template <typename Run>
double MedianMicros(const GlooBaseline& b, long iters, Run run) {
  for (int w = 0; w < 3; ++w) run();
  gloo::BarrierOptions barrier(b.context);
  gloo::barrier(barrier);
  std::vector<double> times;
  for (long i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Baseline: raw Gloo over TCP (ring allreduce, float32 sum), no engine: every rank is a process
// given <rank> <size> <store dir>. Prints BENCH {"bytes":..,"us":..} on rank 0 per size.
// Built and run by scripts/bench.mjs.
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <algorithm>
#include <vector>

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int rank = std::atoi(argv[1]);
  const int size = std::atoi(argv[2]);
  const long min_bytes = argc > 4 ? std::atol(argv[4]) : 4096;
  const long max_bytes = argc > 5 ? std::atol(argv[5]) : 64L * 1024 * 1024;
  gloo::rendezvous::FileStore files(argv[3]);
  gloo::rendezvous::PrefixStore store("baseline", files);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  context->connectFullMesh(store, device);
  using Fn = void (*)(void*, const void*, const void*, size_t);
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    std::vector<float> data(bytes / 4, static_cast<float>(rank + 1));
    long iters = std::max(3L, std::min(50L, (256L * 1024 * 1024) / bytes / 4));
    auto run = [&] {
      gloo::AllreduceOptions opts(context);
      opts.setOutput(data.data(), data.size());
      opts.setReduceFunction(static_cast<Fn>(&gloo::sum<float>));
      gloo::allreduce(opts);
    };
    run();
    gloo::BarrierOptions barrier(context);
    gloo::barrier(barrier);
    // The median of per-iteration times, like Kolo's bench: one preempted iteration on a shared
    // machine does not move it.
    std::vector<double> times;
    for (long i = 0; i < iters; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run();
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    double us = times[times.size() / 2];
    if (rank == 0) std::printf("BENCH {\"bytes\":%ld,\"us\":%.3f}\n", bytes, us);
  }
  return 0;
}

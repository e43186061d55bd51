// The shared-memory transport alone, without the engine or JS: one ShmTransport per thread,
// float32 sum allreduce at 4 KiB to 64 MiB, median time per op on rank 0 (every op starts after
// a barrier, as in mpi_allreduce.c). Shows what the engine and the binding add on top.
// Then a fused allreduce of N separate 4 KiB tensors three ways, side by side: one contiguous
// buffer of the same bytes (the floor), the tensors as segments read and written where they lie
// (what the engine does), and through a fusion buffer (Transport's default: copy in, reduce,
// copy out).
//   build/tests/Release/kolo_shm_bench [ranks=2] [max_bytes=67108864] [reduce_chunk_bytes]
// (the last: ShmOptions::reduce_chunk_bytes, default its default; to compare piece sizes)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "forwarding_transport.h"
#include "shm_test_util.h"

namespace {

// Median microseconds of `op` over `iters` runs, each started after a barrier.
template <typename Op>
double MedianUs(kolo::Transport& t, int iters, Op op) {
  std::vector<double> times;
  for (int i = 0; i <= iters; ++i) {
    t.Barrier();
    const auto t0 = std::chrono::steady_clock::now();
    op();
    const auto t1 = std::chrono::steady_clock::now();
    if (i > 0) times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kolo;
  const int size = argc > 1 ? std::atoi(argv[1]) : 2;
  const size_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (64u << 20);
  const size_t chunk = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : ShmOptions{}.reduce_chunk_bytes;
  const std::string prefix = "kolo-bench-" + std::to_string(::getpid());
  std::printf("# shm transport alone: %d ranks (threads), float32 sum, reduced %zu bytes at a time\n", size, chunk);
  std::printf("#%11s %10s %10s %8s\n", "size(B)", "time(us)", "busbw", "#wrong");
  RunRanks(size, [&](int r) {
             ShmOptions o = TestShmOptions(r, size, prefix);
             o.reduce_chunk_bytes = chunk;
             return o;
           },
           [&](ShmTransport& t, int rank) {
             for (size_t bytes = 4096; bytes <= max_bytes; bytes *= 4) {
               const int64_t count = static_cast<int64_t>(bytes / 4);
               std::vector<float> data(static_cast<size_t>(count));
               const int iters = static_cast<int>(std::max<size_t>(5, std::min<size_t>(200, (512u << 20) / bytes)));
               std::vector<double> times;
               for (int i = 0; i <= iters; ++i) {
                 std::fill(data.begin(), data.end(), static_cast<float>(rank + 1));
                 t.Barrier();
                 const auto t0 = std::chrono::steady_clock::now();
                 t.Allreduce(data.data(), count, DataType::kFloat32, ReduceOp::kSum);
                 const auto t1 = std::chrono::steady_clock::now();
                 if (i > 0) times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
               }
               std::sort(times.begin(), times.end());
               const double us = times[times.size() / 2];
               const float want = static_cast<float>(size * (size + 1) / 2);
               int64_t wrong = 0;
               for (float v : data) wrong += v != want;
               const double busbw = bytes / 1e3 / us * 2.0 * (size - 1) / size;
               if (rank == 0) std::printf(" %11zu %10.1f %10.2f %8lld\n", bytes, us, busbw, static_cast<long long>(wrong));
             }
             if (rank == 0) {
               std::printf("# fused: N tensors of 4 KiB, median us: one contiguous buffer | segments | fusion buffer\n");
               std::printf("#%8s %12s %10s %14s %8s\n", "tensors", "contiguous", "segments", "fusion buffer", "#wrong");
             }
             ForwardingTransport fused(t);  // Transport's default AllreduceSegments
             for (int n : {50, 200, 1000}) {
               const int64_t per = 1024;
               std::vector<std::vector<float>> in(n, std::vector<float>(per, static_cast<float>(rank + 1)));
               std::vector<std::vector<float>> out(n, std::vector<float>(per));
               std::vector<BufferSegment> segments;
               for (int k = 0; k < n; ++k) segments.push_back({in[k].data(), out[k].data(), per * sizeof(float)});
               std::vector<float> whole(static_cast<size_t>(n * per), static_cast<float>(rank + 1));
               std::vector<float> whole_out(whole.size());
               std::vector<char> scratch;
               const int iters = 100;
               const double contiguous = MedianUs(t, iters, [&] {
                 t.AllreduceInto(whole.data(), whole_out.data(), n * per, DataType::kFloat32, ReduceOp::kSum, 1.0);
               });
               const double direct = MedianUs(t, iters, [&] {
                 t.AllreduceSegments(segments, n * per, DataType::kFloat32, ReduceOp::kSum, 1.0, scratch);
               });
               const double buffered = MedianUs(t, iters, [&] {
                 fused.AllreduceSegments(segments, n * per, DataType::kFloat32, ReduceOp::kSum, 1.0, scratch);
               });
               const float want = static_cast<float>(size * (size + 1) / 2);
               int64_t wrong = 0;
               for (const auto& o : out) for (float v : o) wrong += v != want;
               for (float v : whole_out) wrong += v != want;
               if (rank == 0) std::printf(" %8d %12.1f %10.1f %14.1f %8lld\n", n, contiguous, direct, buffered, static_cast<long long>(wrong));
             }
           });
  return 0;
}

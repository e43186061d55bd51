#include "engine/trace_points.h"

#ifdef KOLO_PHASE_TRACE
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kolo::phase_trace {
namespace {

struct Record {
  const char* tag;
  int64_t ns;
  bool background;
};

// Enough for a few seconds of small calls; later records are dropped.
constexpr int kCapacity = 1 << 21;
Record records[kCapacity];
std::atomic<int> used{0};
thread_local bool background = false;

}  // namespace

void Mark(const char* tag) {
  const int i = used.fetch_add(1, std::memory_order_relaxed);
  if (i >= kCapacity) return;
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  records[i] = {tag, std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(), background};
}

void OnBackgroundThread() { background = true; }

void Dump(int rank) {
  const char* base = std::getenv("KOLO_PHASE_TRACE");
  if (base == nullptr || *base == '\0') return;
  const std::string path = std::string(base) + "." + std::to_string(rank);
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return;
  const int n = std::min(used.load(), kCapacity);
  for (int i = 0; i < n; ++i) {
    std::fprintf(f, "%s %lld %d\n", records[i].tag, static_cast<long long>(records[i].ns),
                 records[i].background ? 1 : 0);
  }
  std::fclose(f);
}

}  // namespace kolo::phase_trace
#endif

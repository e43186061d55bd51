// Runs one ShmTransport per thread over a MemoryStore, so tests see every rank's results.
#pragma once

#include <dirent.h>

#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "memory_store.h"
#include "transport/shm_transport.h"

namespace kolo {

inline ShmOptions TestShmOptions(int rank, int size, const std::string& prefix) {
  ShmOptions o;
  o.rank = rank;
  o.size = size;
  o.timeout = std::chrono::milliseconds(10000);
  o.store_key = prefix + "/shm";
  o.name_prefix = prefix;
  o.single_copy_trial_bytes = 0;  // one copy wherever the kernel allows it (tests of that path)
  return o;
}

// Calls body(transport, rank) on `size` threads; rethrows the first rank's exception.
inline void RunRanks(int size, const std::function<ShmOptions(int)>& options,
                     const std::function<void(ShmTransport&, int)>& body) {
  MemoryStore store;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(size));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      try {
        ShmTransport t(store, options(r));
        body(t, r);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// Names in /dev/shm that contain `fragment`.
inline std::vector<std::string> ShmLeftovers(const std::string& fragment) {
  std::vector<std::string> found;
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return found;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name.find(fragment) != std::string::npos) found.push_back(name);
  }
  ::closedir(dir);
  return found;
}

}  // namespace kolo

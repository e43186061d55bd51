// Per-call state shared between the JS thread and the engine thread: the pinned JS arrays, the
// promise (async) or condition variable (sync), and the finished entries.
#pragma once

#include <napi.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/tensor_queue.h"

namespace kolo {

struct Job {
  // Main thread only.
  std::vector<Napi::Reference<Napi::Value>> pinned;
  std::optional<Napi::Promise::Deferred> deferred;
  std::string stack_hint;

  // Shared, under mu.
  std::mutex mu;
  std::condition_variable cv;
  int remaining = 0;
  Status error;
  std::vector<EntryPtr> done;
  bool sync = false;

  // Called on a thread that may not be the main thread; the env may be gone at teardown.
  void ForgetPinned() {
    for (auto& ref : pinned) ref.SuppressDestruct();
    pinned.clear();
  }
};
using JobPtr = std::shared_ptr<Job>;

// Builds the JS result array for a finished job, or the Error to reject with.
Napi::Value JobResults(Napi::Env env, Job& job);
Napi::Error StatusToError(Napi::Env env, const Status& status);

// Reads JS request objects into engine entries owned by `job`. Throws Napi::Error (TypeError)
// on malformed input; pins arrays when `pin` is set.
std::vector<EntryPtr> ReadRequests(Napi::Env env, Napi::Array requests, bool grouped,
                                   const JobPtr& job, bool pin);

}  // namespace kolo

// Per-call state shared between the JS thread and the engine thread: the pinned JS arrays, the
// promise (async) or condition variable (sync), and the finished entries.
#pragma once

#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/tensor_queue.h"

namespace kolo {

// What the calls of one enqueueBatch share (main thread only; it lives until the last of them
// is delivered): the JS function they settle through, and the batch's array of every input and
// output, pinned once for all of them instead of once per array. Both are pinned only when a
// call is still in flight as enqueueBatch returns: until then they are its arguments, which its
// handle scope keeps alive, and a batch that completes inside the call (this thread ran the
// cycle) then costs no reference at all (making and deleting two cost about a fifth of a 4 KiB
// allreduce's native work).
struct Settler {
  Napi::FunctionReference fn;
  Napi::Reference<Napi::Value> arrays;
  napi_value fn_in_call = nullptr;  // the settle function while enqueueBatch runs
  Napi::Function Fn(Napi::Env env) const {
    return fn.IsEmpty() ? Napi::Function(env, fn_in_call) : fn.Value();
  }
};

struct Job {
  // Main thread only.
  std::vector<Napi::Reference<Napi::Value>> pinned;
  std::optional<Napi::Promise::Deferred> deferred;  // enqueue: the promise to settle
  std::shared_ptr<Settler> settler;                 // enqueueBatch: who to tell, and the call's
  uint32_t call_index = 0;                          // position in that batch
  // A call queued again from a kept batch (EngineWrap::EnqueueRepeat): the batch's token and
  // serial, so that once delivered the job and its entries go back to it, to be queued again
  // as they are on its next repeat (0: an ordinary call, freed once delivered).
  uint32_t kept_token = 0;
  uint64_t kept_serial = 0;

  // Shared. `remaining` counts the entries not yet finished: the engine thread that takes it to
  // 0 sees every entry and error the others stored before their decrements. `error` is written
  // under mu; a blocking caller waits on cv under mu (EngineWrap::Finish notifies after taking
  // mu, so the wake-up cannot fall between its check and its wait).
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<int> remaining{0};
  Status error;
  std::vector<EntryPtr, PoolAllocator<EntryPtr>> done;  // one block per call: pooled
  bool sync = false;

  // Called on a thread that may not be the main thread; the env may be gone at teardown.
  void ForgetPinned() {
    for (auto& ref : pinned) ref.SuppressDestruct();
    pinned.clear();
    if (settler) {
      settler->fn.SuppressDestruct();
      settler->arrays.SuppressDestruct();
    }
  }
};
using JobPtr = std::shared_ptr<Job>;

// A Job from recycled memory (one per call: hundreds per step).
inline JobPtr NewJob() { return std::allocate_shared<Job>(PoolAllocator<Job>()); }

// Builds the JS result array for a finished job. A result that carries nothing (an allreduce
// writes into its output) is `empty` when given: one frozen object that a delivery shares. With
// `maker` (EngineWrap::ResultMaker), a job of one request with per-rank sizes gets its results
// from maker(data, ...splits), `data` undefined where the request's output received them.
Napi::Value JobResults(Napi::Env env, Job& job, napi_value empty = nullptr, napi_value maker = nullptr);
// True when the entry's result is more than "done" (data, splits, the last joined rank).
bool CarriesResult(const TensorEntry* e);
Napi::Error StatusToError(Napi::Env env, const Status& status);

// Reads JS request objects into engine entries owned by `job`. Throws Napi::Error (TypeError)
// on malformed input; pins arrays when `pin` is set.
std::vector<EntryPtr> ReadRequests(Napi::Env env, Napi::Array requests, bool grouped,
                                   const JobPtr& job, bool pin);

// A PackedBatch (lib/pack-batch.ts has the layout): the numbers of every request in one
// Float64Array and every name in one string, so reading one costs a few N-API calls instead of
// one per field.
inline constexpr size_t kCallHeader = 5;  // requests, grouped, numbers, name units, array slots
struct PackedCall {
  uint32_t first_request = 0;  // index of its first request
  uint32_t count = 0;          // requests in the call
  bool grouped = false;
  size_t begin = 0, end = 0;   // its requests' numbers
  size_t name_begin = 0, name_end = 0;  // its requests' names, in UTF-16 units of `names`
  size_t slot_begin = 0, slot_end = 0;  // its requests' arrays, in `arrays`
};
// A typed array's bytes as the binding read them.
struct View {
  void* data = nullptr;  // may be null for an empty array
  size_t bytes = 0;
  bool present = false;
};

struct PackedBatch {
  const double* numbers = nullptr;
  size_t length = 0;
  std::u16string names;  // every request's name, one after another
  napi_value arrays = nullptr;
  // The same arrays as the call's trailing arguments, when the caller passed them there (the
  // call's arguments come in one N-API call, where reading `arrays` costs one per element);
  // else empty.
  std::vector<napi_value> array_args;
  std::vector<PackedCall> calls;
  // Every slot's array as ReadPackedCall read it, when `record` is set (slot i at views[i]);
  // with `replay` set, ReadPackedCall takes the arrays from here instead of from JS (a batch
  // queued again: see EngineWrap::EnqueueRepeat).
  std::vector<View> views;
  bool record = false;
  bool replay = false;
  // A kept batch's own copy of its numbers, which `numbers` then points at.
  std::vector<double> own_numbers;
};

// Reads the batch (`info[0..2]`: its numbers, names and arrays, as packBatch makes them)
// and checks its layout, into `batch` (whose vectors keep their capacity from one call to the
// next); throws a TypeError (nothing queued yet) when it is malformed. Its fields come as
// arguments, not as an object's properties: each property read is an N-API call that costs as
// much as a small collective's whole reduction. The arguments from `info[first_array_arg]` on are
// the batch's arrays when there is exactly one per slot (packBatch's callers spread them there);
// otherwise they are ignored.
void ReadPackedBatch(Napi::Env env, const Napi::CallbackInfo& info, size_t first_array_arg,
                     PackedBatch& batch);
// Reads one call into `entries` (replacing what it held), as ReadRequests reads an array of
// request objects; its arrays from JS or, with `batch.replay`, from `batch.views`.
void ReadPackedCall(Napi::Env env, PackedBatch& batch, const PackedCall& call,
                    const JobPtr& job, bool pin, std::vector<EntryPtr>& entries);

}  // namespace kolo

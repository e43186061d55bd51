// Kept batches (EngineWrap's side of `enqueueRepeat` and `enqueueSyncRepeat`): a batch that
// enqueuePacked or enqueueSyncPacked read, kept by token so that the caller's next identical turn
// (or blocking call) is queued again from it, without packing, passing or reading its arrays.
#include "binding/engine_wrap.h"
#include "engine/trace_points.h"

namespace kolo {

// `enqueueRepeat(token, settle)`: queues again the calls of a batch that enqueuePacked kept
// under `token`, whose arrays the caller vouches are the same JS arrays, each of the same
// length (so their memory is where it was: a typed array's data lies outside V8's heap, or is
// moved there, once N-API has read it). Skips packing the batch in JS, passing its arrays, and
// reading each. False, and nothing queued, when the binding no longer keeps that batch (it
// keeps the kMaxKept most recently queued). 2 instead of true when every call finished inside
// this call with nothing to report: `settle` was not called, and the caller settles each call as
// done (one call from C++ into JS less, about a tenth of a small awaited allreduce).
Napi::Value EngineWrap::EnqueueRepeat(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[1].IsFunction()) {
    throw Napi::TypeError::New(env, "Expected a settle function for enqueueRepeat");
  }
  KOLO_TRACE_POINT("call");
  KeptBatch* kept = FindKept(info[0]);
  if (kept == nullptr) return Napi::Boolean::New(env, false);
  kept->batch.replay = true;
  kept->batch.record = false;
  bool all_done = false;
  QueueBatch(env, kept->batch, info[1], nullptr, kept, &all_done);
  return all_done ? Napi::Value(Napi::Number::New(env, 2)) : Napi::Value(Napi::Boolean::New(env, true));
}

// The kept batch of the token `value` names, marked as just used; null when none is kept.
EngineWrap::KeptBatch* EngineWrap::FindKept(napi_value value) {
  double token = 0;
  if (napi_get_value_double(Env(), value, &token) != napi_ok || !(token >= 1 && token <= UINT32_MAX)) {
    return nullptr;
  }
  const auto it = kept_.find(static_cast<uint32_t>(token));
  if (it == kept_.end() || static_cast<double>(it->first) != token) return nullptr;
  it->second->used = ++uses_;
  return it->second.get();
}

uint32_t EngineWrap::Keep(PackedBatch& batch) {
  std::unique_ptr<KeptBatch> slot;
  if (kept_.size() >= kMaxKept) {  // the least recently used makes room (and lends its vectors)
    auto oldest = kept_.begin();
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->second->used < oldest->second->used) oldest = it;
    }
    slot = std::move(oldest->second);
    kept_.erase(oldest);
  } else {
    slot = std::make_unique<KeptBatch>();
  }
  last_token_ = NextToken();
  slot->used = ++uses_;
  slot->token = last_token_;
  slot->serial = ++keeps_;
  // Its numbers are its own; its names, calls and views move over (packed_ refills its own on
  // the next read).
  PackedBatch& kept = slot->batch;
  kept.own_numbers.assign(batch.numbers, batch.numbers + batch.length);
  kept.numbers = kept.own_numbers.data();
  kept.length = batch.length;
  kept.names.swap(batch.names);
  kept.calls.swap(batch.calls);
  kept.views.swap(batch.views);
  kept.arrays = nullptr;
  kept.array_args.clear();
  slot->spares.assign(kept.calls.size(), nullptr);  // an evicted batch's spares go
  kept_[last_token_] = std::move(slot);
  return last_token_;
}

JobPtr EngineWrap::CallJob(Napi::Env env, PackedBatch& batch, uint32_t i, KeptBatch* kept,
                           const std::shared_ptr<Settler>& settler, std::vector<EntryPtr>& entries) {
  // A kept batch's call runs again as its last run left it, where that was delivered.
  if (kept != nullptr) {
    if (JobPtr spare = TakeSpare(*kept, i, settler, entries)) return spare;
  }
  JobPtr job = NewJob();
  job->settler = settler;
  job->call_index = i;
  if (kept != nullptr) {
    job->kept_token = kept->token;
    job->kept_serial = kept->serial;
  }
  ReadPackedCall(env, batch, batch.calls[i], job, /*pin=*/false, entries);
  return job;
}

JobPtr EngineWrap::TakeSpare(KeptBatch& kept, uint32_t i, const std::shared_ptr<Settler>& settler,
                             std::vector<EntryPtr>& entries) {
  if (i >= kept.spares.size() || !kept.spares[i]) return nullptr;
  JobPtr job = std::move(kept.spares[i]);
  entries.clear();
  for (EntryPtr& e : job->done) {
    e->owner = job;
    entries.push_back(std::move(e));
  }
  job->remaining.store(static_cast<int>(entries.size()), std::memory_order_relaxed);  // published by the queue lock
  job->settler = settler;
  return job;
}

void EngineWrap::Recycle(JobPtr& job) {
  // Only this holds a delivered job; the check keeps a mistake from sharing one between calls.
  if (job->kept_token == 0 || !job->error.ok() || job.use_count() != 1) return;
  const auto it = kept_.find(job->kept_token);
  if (it == kept_.end() || it->second->serial != job->kept_serial) return;
  KeptBatch& kept = *it->second;
  if (job->call_index >= kept.spares.size() || kept.spares[job->call_index]) return;
  for (const EntryPtr& e : job->done) {
    if (!e) return;
  }
  // What the engine wrote besides the caller's output (results were copied into JS values).
  for (EntryPtr& e : job->done) {
    e->result.Allocate(0);
    e->result_splits.clear();
    e->last_joined_rank = -1;
  }
  job->settler.reset();
  job->pinned.clear();
  kept.spares[job->call_index] = std::move(job);
}

// `keepNextBatch()`: the next enqueuePacked or enqueueSyncPacked keeps its batch if it queues
// every call; returns the token it will keep it under.
Napi::Value EngineWrap::KeepNextBatch(const Napi::CallbackInfo& info) {
  keep_next_ = true;
  return Napi::Number::New(info.Env(), NextToken());
}

uint32_t EngineWrap::NextToken() const {
  return last_token_ == UINT32_MAX ? 1 : last_token_ + 1;  // 0 names none
}

size_t EngineWrap::CountSlots(const PackedBatch& batch) {
  return batch.calls.empty() ? 0 : batch.calls.back().slot_end;
}

// `enqueueSyncRepeat(token)`: enqueueSyncPacked for the one-call batch kept under `token` (see
// EnqueueRepeat); undefined, and nothing queued, when the binding no longer keeps it.
Napi::Value EngineWrap::EnqueueSyncRepeat(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  KOLO_TRACE_POINT("call");
  KeptBatch* kept = FindKept(info[0]);
  if (kept == nullptr || kept->batch.calls.size() != 1) return env.Undefined();
  kept->batch.replay = true;
  kept->batch.record = false;
  return RunSync(env, kept->batch, kept);
}

}  // namespace kolo

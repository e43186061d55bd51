// How finished calls reach JS: the engine's completion sink (Finish, EndOfCycle, on whichever
// thread ran the cycle), the hand-off to the JS thread (the thread-safe function, or inline when
// the JS thread ran the cycle itself), and the settling of promises and settle functions there,
// with the values every such completion shares.
#include <algorithm>
#include <cstring>

#include "binding/engine_wrap.h"
#include "engine/trace_points.h"

namespace kolo {

namespace {
// `ref`'s object: made by `make` and frozen on first use, then the same one every time.
template <typename Make>
napi_value Frozen(Napi::ObjectReference& ref, Napi::Env env, Make make) {
  if (ref.IsEmpty()) {
    Napi::Object o = make();
    napi_object_freeze(env, o);
    ref = Napi::Persistent(o);
  }
  return ref.Value();
}
}  // namespace

napi_value EngineWrap::EmptyResult(Napi::Env env) {
  return Frozen(empty_result_, env, [&] { return Napi::Object::New(env); });
}

napi_value EngineWrap::DoneResult(Napi::Env env) {
  return Frozen(done_result_, env, [&] {
    Napi::Array a = Napi::Array::New(env, 1);
    a.Set(0u, Napi::Value(env, EmptyResult(env)));
    return a.As<Napi::Object>();
  });
}

napi_value EngineWrap::NoOutcomes(Napi::Env env) {
  return Frozen(no_outcomes_, env, [&] { return Napi::Array::New(env, 0).As<Napi::Object>(); });
}

napi_value EngineWrap::Indices(Napi::Env env, const std::vector<uint32_t>& indices) {
  if (indices_.IsEmpty() || indices.size() > indices_capacity_) {
    const size_t capacity = std::max<size_t>(indices.size(), std::max<size_t>(256, 2 * indices_capacity_));
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, capacity * sizeof(uint32_t));
    indices_data_ = static_cast<uint32_t*>(buffer.Data());
    indices_capacity_ = capacity;
    indices_ = Napi::Persistent(Napi::Uint32Array::New(env, capacity, buffer, 0).As<Napi::Object>());
  }
  if (!indices.empty()) std::memcpy(indices_data_, indices.data(), indices.size() * sizeof(uint32_t));
  return indices_.Value();
}

void EngineWrap::Finish(EntryPtr entry, const Status& status) {
  JobPtr job = std::static_pointer_cast<Job>(entry->owner);
  entry->owner.reset();
  const int index = entry->index;
  // No lock for a success: each entry has its own place in `done`, and the release in the
  // decrement publishes it (a lock pair per entry was a few percent of 200 small calls).
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(job->mu);
    if (job->error.ok()) job->error = status;
  }
  job->done[index] = std::move(entry);
  if (job->remaining.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // On the JS thread (a cycle it runs itself), no lock: a blocking call's caller is this
  // thread, so not waiting, and finished calls go straight to the list it settles on return.
  const bool js_thread = std::this_thread::get_id() == js_thread_;
  if (job->sync) {
    if (js_thread) return;
    { std::lock_guard<std::mutex> lock(job->mu); }
    job->cv.notify_all();
  } else if (js_thread) {
    inline_done_.push_back(std::move(job));
  } else {
    std::lock_guard<std::mutex> lock(batch_mu_);
    batch_.push_back(std::move(job));
    batch_pending_.store(true, std::memory_order_relaxed);
  }
}

void EngineWrap::EndOfCycle() {
  // Only the thread running a cycle fills batch_ (the flag is its own store, or one made
  // before a lock it took since), so an unset flag is an empty batch: no lock.
  if (!batch_pending_.load(std::memory_order_relaxed)) return;
  std::vector<JobPtr> jobs;
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    batch_pending_.store(false, std::memory_order_relaxed);
    if (batch_.empty()) return;
    jobs.swap(batch_);
  }
  if (std::this_thread::get_id() == js_thread_) {
    for (JobPtr& job : jobs) inline_done_.push_back(std::move(job));
    jobs.clear();
    std::lock_guard<std::mutex> lock(batch_mu_);
    if (batch_.empty()) batch_.swap(jobs);
    return;
  }
  Send(new Delivery{std::move(jobs), std::nullopt, std::nullopt});
}

void EngineWrap::DeliverInline(Napi::Env env) {
  if (inline_done_.empty()) return;
  Delivery d;
  d.jobs.swap(inline_done_);
  Deliver(env, d);
  // Keep the vector's room for the next cycle, unless a nested delivery refilled it meanwhile.
  d.jobs.clear();
  if (inline_done_.empty()) inline_done_.swap(d.jobs);
}

void EngineWrap::Started(const Status& status) {
  Send(new Delivery{{}, status, std::nullopt});
}

void EngineWrap::Stopped(const Status& status) {
  EndOfCycle();
  Send(new Delivery{{}, std::nullopt, status});
}

void EngineWrap::Send(Delivery* delivery) {
  if (tsfn_.BlockingCall(delivery) != napi_ok) {
    for (JobPtr& job : delivery->jobs) job->ForgetPinned();
    delete delivery;
  }
}

void DeliverToJs(Napi::Env env, Napi::Function, EngineWrap* wrap, Delivery* delivery) {
  std::unique_ptr<Delivery> d(delivery);
  if (env == nullptr) {  // the environment is going away: just free
    for (JobPtr& job : d->jobs) job->ForgetPinned();
    return;
  }
  Napi::HandleScope scope(env);
  wrap->Deliver(env, *d);
}

// Settles the delivery's calls, on the JS thread, inside a handle scope of the caller's (the
// call from JS that ran the cycle, or DeliverToJs's own: opening one costs an allocation). The
// jobs (and so their settlers) stay alive until the caller drops `d`.
void EngineWrap::Deliver(Napi::Env env, Delivery& delivery) {
  KOLO_TRACE_POINT("deliver");
  // A call of one request that carries nothing (an allreduce, a broadcast, a barrier: most
  // calls) settles with the engine's one frozen [{}] (allreduce resolves with its output, not
  // with this), so such calls build no value at all.
  auto empty = [&]() { return EmptyResult(env); };
  auto done = [&]() { return DoneResult(env); };
  // enqueueBatch calls finished in this delivery, one list per batch (usually one batch). Each
  // batch's settle function gets (indices: Uint32Array, outcomes, done): outcomes[i] is the
  // call's results or error, or a hole where they are `done`, so the common case costs no
  // N-API call per call (a JS array's elements cost one each).
  std::vector<Settled> nested;
  std::vector<Settled>& settled = settling_ ? nested : settled_;
  const bool outer = !settling_;
  settling_ = true;
  size_t used = 0;  // the first `used` of `settled` are this delivery's
  for (JobPtr& job : delivery.jobs) {
    napi_value outcome = nullptr;
    if (!job->error.ok()) {
      outcome = StatusToError(env, job->error).Value();
    } else if (!job->settler || job->done.size() != 1 || CarriesResult(job->done[0].get())) {
      outcome = JobResults(env, *job, empty(), ResultMaker(env));
    }
    if (job->settler) {
      auto it = std::find_if(settled.begin(), settled.begin() + static_cast<ptrdiff_t>(used),
                             [&](const Settled& s) { return s.settler == job->settler.get(); });
      if (it == settled.begin() + static_cast<ptrdiff_t>(used)) {
        if (used == settled.size()) settled.emplace_back();
        it = settled.begin() + static_cast<ptrdiff_t>(used++);
        it->settler = job->settler.get();
        it->indices.clear();
        it->outcomes.clear();
        it->any_done = false;
      }
      it->indices.push_back(job->call_index);
      it->outcomes.push_back(outcome);
      it->any_done = it->any_done || outcome == nullptr;
    } else if (job->error.ok()) {
      job->deferred->Resolve(outcome);
    } else {
      job->deferred->Reject(outcome);
    }
    job->pinned.clear();
    Release(env);
  }
  // A throwing settle function does not keep the others from running; its exception is
  // rethrown afterwards (uncaught in JS).
  std::optional<Napi::Error> thrown;
  KOLO_TRACE_POINT("settle");
  for (size_t k = 0; k < used; ++k) {
    Settled& s = settled[k];
    const size_t n = s.indices.size();
    const bool any_outcome =
        std::any_of(s.outcomes.begin(), s.outcomes.end(), [](napi_value o) { return o != nullptr; });
    if (s.settler == direct_settler_ && !any_outcome && n == direct_calls_) {
      direct_done_ = true;  // QueueBatch's caller settles them all as done
      continue;
    }
    const napi_value indices = Indices(env, s.indices);
    napi_value outcomes;
    if (any_outcome) {
      Napi::Array a = Napi::Array::New(env, n);
      for (size_t i = 0; i < n; ++i) {
        if (s.outcomes[i] != nullptr) a.Set(static_cast<uint32_t>(i), Napi::Value(env, s.outcomes[i]));
      }
      outcomes = a;
    } else {
      outcomes = NoOutcomes(env);
    }
    try {
      s.settler->Fn(env).Call({Napi::Value(env, indices), Napi::Value(env, outcomes),
                          s.any_done ? Napi::Value(env, done()) : env.Undefined(),
                          Napi::Number::New(env, static_cast<double>(n))});
    } catch (const Napi::Error& e) {
      if (!thrown) thrown = e;
    }
  }
  KOLO_TRACE_POINT("settled");
  // Calls of kept batches go back to them, to be queued again as they are.
  for (JobPtr& job : delivery.jobs) {
    if (job->kept_token != 0) Recycle(job);
  }
  // Were anything but a settle function's JS error to escape the loop above, settling_ would
  // stay set, and later deliveries would merely use vectors of their own.
  if (outer) settling_ = false;
  if (delivery.started) {
    if (delivery.started->ok()) {
      start_deferred_->Resolve(Value());
    } else {
      start_deferred_->Reject(StatusToError(env, *delivery.started).Value());
    }
    start_deferred_.reset();
    Release(env);
  }
  if (delivery.stopped) {
    stopped_ = true;
    final_status_ = *delivery.stopped;
    Teardown();
    for (auto& waiter : shutdown_waiters_) {
      waiter.Resolve(env.Undefined());
      Release(env);
    }
    shutdown_waiters_.clear();
    tsfn_open_ = false;
    tsfn_.Release();
    self_.Reset();
  }
  if (thrown) thrown->ThrowAsJavaScriptException();
}

}  // namespace kolo

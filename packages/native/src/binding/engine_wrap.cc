#include "binding/engine_wrap.h"
#include "engine/trace_points.h"

#include <set>

#include "transport/gloo_transport.h"
#include "transport/mpi_transport.h"
#include "transport/nccl_transport.h"
#include "transport/shm_transport.h"
#include <gloo/rendezvous/prefix_store.h>

namespace kolo {
namespace {

std::string StringField(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : std::string();
}

int64_t IntField(const Napi::Object& o, const char* key, int64_t fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int64Value() : fallback;
}

// NativeEngineConfig.autotune; absent means off.
AutotuneConfig AutotuneField(const Napi::Object& config) {
  AutotuneConfig a;
  Napi::Value v = config.Get("autotune");
  if (!v.IsObject()) return a;
  Napi::Object o = v.As<Napi::Object>();
  a.enabled = o.Get("enabled").ToBoolean();
  a.log_path = StringField(o, "logPath");
  a.warmup_samples = static_cast<int>(IntField(o, "warmupSamples", a.warmup_samples));
  a.steps_per_sample = static_cast<int>(IntField(o, "stepsPerSample", a.steps_per_sample));
  a.max_samples = static_cast<int>(IntField(o, "maxSamples", a.max_samples));
  a.fusion_threshold_fixed = o.Get("fusionThresholdFixed").ToBoolean();
  a.cycle_time_fixed = o.Get("cycleTimeFixed").ToBoolean();
  return a;
}

// The engine's handle on the rendezvous store; the transport sees it through a PrefixStore.
class OwnedStore : public KeyValueStore {
 public:
  explicit OwnedStore(std::unique_ptr<RendezvousStore> inner) : inner_(std::move(inner)) {}
  void Set(const std::string& k, const std::vector<char>& v) override { inner_->Set(k, v); }
  std::optional<std::vector<char>> Get(const std::string& k,
                                       std::chrono::milliseconds t) override {
    return inner_->Get(k, t);
  }
  bool Alive() override { return inner_->Alive(); }
  RendezvousStore& inner() { return *inner_; }

 private:
  std::unique_ptr<RendezvousStore> inner_;
};

// NCCL for the data plane over a Gloo control context of the same ranks (the Gloo store view is
// the one the Gloo transport would use); rank 0 publishes the NCCL id under the engine's prefix.
std::unique_ptr<Transport> ConnectNccl(RendezvousStore& store, const std::string& prefix,
                                       const std::string& gloo_scope, const std::string& scope,
                                       const GlooOptions& go, int local_rank, int gpu_device) {
  gloo::rendezvous::PrefixStore view(prefix + "/" + gloo_scope, store);
  auto control = std::make_unique<GlooTransport>(view, go);
  NcclOptions no;
  no.rank = go.rank;
  no.size = go.size;
  no.local_rank = local_rank;
  no.gpu_device = gpu_device;
  no.id_key = prefix + "/nccl/" + scope + "/id";
  no.timeout = go.timeout;
  return std::make_unique<NcclTransport>(store, std::move(control), no);
}

// The shared-memory options every group of a job starts from: its timeout, and one copy as the
// `singleCopy` config field says ("auto": where the kernel allows it and the trials find it no
// slower, "on": wherever the kernel allows it, "off": never). False for any other value.
bool JobShmOptions(const std::string& single_copy, std::chrono::milliseconds timeout, ShmOptions& so) {
  so.timeout = timeout;
  if (single_copy == "on") {
    so.single_copy_trial_bytes = so.single_copy_allreduce_size_trial_min_bytes = 0;
  } else if (single_copy == "off") {
    so.single_copy_broadcast_max_bytes = so.single_copy_allgather_max_bytes = so.single_copy_allreduce_max_bytes = 0;
  } else if (single_copy != "auto") {
    return false;
  }
  return true;
}

// The shared-memory transport for `size` ranks of one host, from the job's options `so`
// (JobShmOptions); `scope` keeps groups' segments apart.
std::unique_ptr<Transport> ConnectShm(KeyValueStore& store, const std::string& prefix,
                                      const std::string& scope, int rank, int size, ShmOptions so) {
  so.rank = rank;
  so.size = size;
  so.store_key = prefix + "/shm/" + scope + "/name";
  so.name_prefix = prefix + "-" + scope;
  return std::make_unique<ShmTransport>(store, so);
}

}  // namespace

Napi::Function EngineWrap::Define(Napi::Env env) {
  return DefineClass(env, "NativeEngine",
                     {InstanceMethod<&EngineWrap::Enqueue>("enqueue"),
                      InstanceMethod<&EngineWrap::EnqueueBatch>("enqueuePacked"),
                      InstanceMethod<&EngineWrap::EnqueueSync>("enqueueSyncPacked"),
                      InstanceMethod<&EngineWrap::EnqueueRepeat>("enqueueRepeat"),
                      InstanceMethod<&EngineWrap::EnqueueSyncRepeat>("enqueueSyncRepeat"),
                      InstanceMethod<&EngineWrap::KeepNextBatch>("keepNextBatch"),
                      InstanceMethod<&EngineWrap::StartTimeline>("startTimeline"),
                      InstanceMethod<&EngineWrap::StopTimeline>("stopTimeline"),
                      InstanceMethod<&EngineWrap::Tuning>("tuning"),
                      InstanceMethod<&EngineWrap::SingleCopy>("singleCopy"),
                      InstanceMethod<&EngineWrap::UseResultMaker>("useResultMaker"),
                      InstanceMethod<&EngineWrap::Shutdown>("shutdown")});
}

EngineWrap::EngineWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EngineWrap>(info) {
  DefineDirect(info.Env(), info.This().As<Napi::Object>());
}

namespace {
std::mutex g_live_mu;
std::set<EngineWrap*> g_live;
}  // namespace

EngineWrap::~EngineWrap() {
  ForgetDirect();
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    g_live.erase(this);
  }
  Teardown();
}

void EngineWrap::StopAll() {
  std::set<EngineWrap*> live;
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    live.swap(g_live);
  }
  for (EngineWrap* wrap : live) wrap->Teardown();
}

void EngineWrap::Teardown() {
  if (engine_) {
    engine_->RequestShutdown();
    engine_->Join();
    engine_.reset();
  }
}

void EngineWrap::Start(Napi::Env env, const Napi::Object& config,
                       Napi::Promise::Deferred deferred) {
  EngineConfig ec;
  ec.rank = static_cast<int>(IntField(config, "rank", 0));
  ec.size = static_cast<int>(IntField(config, "size", 1));
  ec.cycle_time_ms = config.Get("cycleTimeMs").As<Napi::Number>().DoubleValue();
  ec.fusion_threshold_bytes = IntField(config, "fusionThresholdBytes", 128 << 20);
  ec.response_cache_capacity = static_cast<size_t>(IntField(config, "cacheCapacity", 1024));
  ec.timeout_ms = IntField(config, "timeoutMs", 30000);
  ec.local_rank = static_cast<int>(IntField(config, "localRank", 0));
  ec.cross_rank = static_cast<int>(IntField(config, "crossRank", 0));
  ec.cross_size = static_cast<int>(IntField(config, "crossSize", 1));
  ec.hierarchical_allreduce = config.Get("hierarchicalAllreduce").ToBoolean();
  ec.stall.check_ms = IntField(config, "stallCheckMs", 60000);
  ec.stall.shutdown_ms = IntField(config, "stallShutdownMs", 0);
  ec.timeline_path = StringField(config, "timelinePath");
  if (Napi::Value v = config.Get("callerCycles"); !v.IsUndefined()) ec.caller_cycles = v.ToBoolean();
  ec.caller_spin_us = IntField(config, "callerSpinUs", ec.caller_spin_us);
  if (std::string prefix = StringField(config, "failureKeyPrefix"); !prefix.empty()) {
    ec.failure_key_prefix = prefix;
  }
  ec.timeline_mark_cycles = config.Get("timelineMarkCycles").ToBoolean();
  ec.autotune = AutotuneField(config);
  Napi::Object store = config.Get("store").As<Napi::Object>();
  StoreConfig sc;
  sc.kind = StringField(store, "kind") == "file" ? StoreConfig::Kind::kFile
                                                  : StoreConfig::Kind::kTcp;
  sc.host = StringField(store, "host");
  sc.port = static_cast<int>(IntField(store, "port", 0));
  sc.secret = StringField(store, "secret");
  sc.path = StringField(store, "path");
  GlooOptions go;
  go.rank = ec.rank;
  go.size = ec.size;
  go.hostname = StringField(config, "hostname");
  go.iface = StringField(config, "iface");
  go.timeout = std::chrono::milliseconds(ec.timeout_ms);
  const std::string prefix = StringField(config, "storePrefix");
  const std::string transport = StringField(config, "transport");
  const bool use_mpi = transport == "mpi";
  const bool use_nccl = transport == "nccl";
  ShmOptions shm_job;
  const Napi::Value single_copy = config.Get("singleCopy");
  if (!JobShmOptions(single_copy.IsString() ? single_copy.As<Napi::String>().Utf8Value() : "auto", go.timeout,
                     shm_job)) {
    deferred.Reject(Napi::TypeError::New(env, "Expected singleCopy to be 'auto', 'on' or 'off'").Value());
    return;
  }
  if (use_nccl) {
    try {
      EnsureNcclUsable();  // no GPU or no NCCL: say so now, not as a failed connection
    } catch (const std::exception& e) {
      Status status = Status::Error(StatusCode::kUnsupported, e.what());
      deferred.Reject(StatusToError(env, status).Value());
      return;
    }
  }
  if (use_mpi) {
    try {
      EnsureMpiInitialized();  // on the main thread, which must also finalise it
    } catch (const std::exception& e) {
      deferred.Reject(StatusToError(env, Status::Error(StatusCode::kUnsupported, e.what())).Value());
      return;
    }
  }

  const int local_rank = ec.local_rank;
  const int gpu_device = static_cast<int>(IntField(config, "gpuDevice", -1));
  // Shared memory replaces Gloo when the whole job is on this host; across hosts it carries the
  // per-host stage of the hierarchical allreduce.
  const bool shm = config.Get("sharedMemory").ToBoolean() && !use_mpi && !use_nccl;
  const bool one_host = IntField(config, "localSize", 1) == ec.size;
  Connector connect = [sc, go, prefix, use_mpi, use_nccl, local_rank, gpu_device, shm,
                       one_host, shm_job]() {
    auto store = std::make_unique<OwnedStore>(OpenStore(sc, go.timeout));
    Connection c;
    if (use_mpi) {
      auto mpi = std::make_unique<MpiTransport>();
      if (mpi->rank() != go.rank || mpi->size() != go.size) {
        throw std::runtime_error("MPI says this is rank " + std::to_string(mpi->rank()) + " of " +
                                 std::to_string(mpi->size()) + " but the configuration says " +
                                 std::to_string(go.rank) + " of " + std::to_string(go.size));
      }
      c.transport = std::move(mpi);
      c.connect_subset = [](const std::string&, const std::vector<int>& ranks, int) {
        return std::unique_ptr<Transport>(new MpiTransport(ranks));
      };
    } else if (use_nccl) {
      c.transport = ConnectNccl(store->inner(), prefix, "gloo", "world", go, local_rank, gpu_device);
      RendezvousStore* shared = &store->inner();
      c.connect_subset = [shared, go, prefix, local_rank, gpu_device](const std::string& scope,
                                                          const std::vector<int>& ranks, int rank) {
        GlooOptions sub = go;
        sub.rank = rank;
        sub.size = static_cast<int>(ranks.size());
        return ConnectNccl(*shared, prefix, scope, scope, sub, local_rank, gpu_device);
      };
    } else if (shm && one_host) {
      c.transport = ConnectShm(*store, prefix, "world", go.rank, go.size, shm_job);
      KeyValueStore* shared = store.get();
      c.connect_subset = [shared, prefix, shm_job](const std::string& scope,
                                                   const std::vector<int>& ranks, int rank) {
        return ConnectShm(*shared, prefix, scope, rank, static_cast<int>(ranks.size()), shm_job);
      };
    } else {
      gloo::rendezvous::PrefixStore gloo_view(prefix + "/gloo", store->inner());
      c.transport = std::make_unique<GlooTransport>(gloo_view, go);
      RendezvousStore* shared = &store->inner();
      c.connect_subset = [shared, go, prefix](const std::string& scope,
                                              const std::vector<int>& ranks, int rank) {
        GlooOptions sub = go;
        sub.rank = rank;
        sub.size = static_cast<int>(ranks.size());
        gloo::rendezvous::PrefixStore view(prefix + "/" + scope, *shared);
        return std::unique_ptr<Transport>(new GlooTransport(view, sub));
      };
      if (shm) {
        KeyValueStore* shared = store.get();
        c.connect_local = [shared, prefix, shm_job](const std::string& scope,
                                                    const std::vector<int>& ranks, int rank) {
          return ConnectShm(*shared, prefix, scope, rank, static_cast<int>(ranks.size()), shm_job);
        };
      }
    }
    c.store = std::move(store);
    return c;
  };
  tsfn_ = CompletionFn::New(env, "kolo.completions", 0, 1, this);
  tsfn_open_ = true;
  self_ = Napi::Persistent(Value());
  start_deferred_.emplace(deferred);
  Hold(env);
  engine_ = std::make_unique<Engine>(ec, std::move(connect), this);
  std::lock_guard<std::mutex> lock(g_live_mu);
  g_live.insert(this);
}

void EngineWrap::Hold(Napi::Env env) {
  if (holds_++ == 0 && tsfn_open_) tsfn_.Ref(env);
}

void EngineWrap::Release(Napi::Env env) {
  if (--holds_ == 0 && tsfn_open_) tsfn_.Unref(env);
}

Napi::Value EngineWrap::Enqueue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto job = NewJob();
  std::vector<EntryPtr> entries =
      ReadRequests(env, info[0].As<Napi::Array>(), info[1].ToBoolean(), job, true);
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  Status status = engine_ ? engine_->Enqueue(std::move(entries), /*wake=*/false) : final_status_;
  if (!status.ok()) {
    deferred.Reject(StatusToError(env, status).Value());
    return deferred.Promise();
  }
  job->deferred.emplace(deferred);
  Hold(env);
  ScheduleWake(env);
  return deferred.Promise();
}

namespace {
// Empties a reused vector of entries when the scope ends, however it ends.
struct ClearOnExit {
  std::vector<EntryPtr>& entries;
  ~ClearOnExit() { entries.clear(); }
};
}  // namespace

// `enqueuePacked` (NativeEngine.enqueueBatch, packed by lib/pack-batch.ts): queues every call of
// one JS turn at once: one crossing, one Job per call (each settles on its own, as with enqueue)
// and one wake-up. A call that fails at once (a malformed request, a duplicate name, a stopped
// engine) is settled before this returns; the rest of the batch is queued all the same. After
// `keepNextBatch()`, a batch whose every call was queued is kept for `enqueueRepeat` and this
// returns its token; otherwise undefined.
Napi::Value EngineWrap::EnqueueBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[3].IsFunction()) {
    throw Napi::TypeError::New(env, "Expected a settle function for enqueuePacked");
  }
  KOLO_TRACE_POINT("call");
  PackedBatch& batch = packed_;
  const bool keep = keep_next_;
  keep_next_ = false;
  ReadPackedBatch(env, info, 4, batch);
  batch.replay = false;
  batch.record = keep;
  if (keep) batch.views.assign(CountSlots(batch), View{});
  const uint32_t token = QueueBatch(env, batch, info[3], batch.arrays);
  return token != 0 ? Napi::Value(Napi::Number::New(env, token)) : env.Undefined();
}

// Queues the calls of `batch` (read by ReadPackedBatch, or kept), settling through `settle`;
// `arrays` (the batch's array of arrays, null for a kept batch, whose calls the caller keeps)
// is pinned while calls are in flight. With `batch.record` set, keeps the batch when every
// call was queued and returns its token; otherwise 0.
uint32_t EngineWrap::QueueBatch(Napi::Env env, PackedBatch& batch, napi_value settle, napi_value arrays,
                               KeptBatch* kept, bool* all_done) {
  std::shared_ptr<Settler> settler = spare_settler_ ? std::move(spare_settler_) : std::make_shared<Settler>();
  settler->fn_in_call = settle;
  // Calls that fail at once (rare): made on the first.
  Napi::Array failed_indices, failed_outcomes;
  uint32_t failed = 0;
  const auto fail = [&](uint32_t i, napi_value outcome) {
    if (failed == 0) {
      failed_indices = Napi::Array::New(env);
      failed_outcomes = Napi::Array::New(env);
    }
    failed_indices.Set(failed, Napi::Number::New(env, i));
    failed_outcomes.Set(failed++, outcome);
  };
  size_t queued = 0;  // calls
  {
    // Every call's entries first, then all queued under one lock (EnqueueEach); a call that
    // fails leaves its place empty, or its entries there until the scope ends.
    const size_t n = batch.calls.size();
    std::vector<std::vector<EntryPtr>>& entries = call_entries_;
    if (entries.size() < n) entries.resize(n);
    const struct ClearEach {
      std::vector<std::vector<EntryPtr>>& lists;
      size_t n;
      ~ClearEach() {
        for (size_t i = 0; i < n; ++i) lists[i].clear();
      }
    } clear{entries, n};
    std::vector<Status>& status = call_status_;
    std::vector<napi_value>& errors = call_errors_;
    status.assign(n, Status::Ok());
    errors.assign(n, nullptr);
    for (uint32_t i = 0; i < n; ++i) {
      try {
        CallJob(env, batch, i, kept, settler, entries[i])->sync = false;
      } catch (const Napi::Error& e) {
        errors[i] = e.Value();
        status[i] = Status::Error(StatusCode::kInternal, "unread");  // EnqueueEach skips it
      }
    }
    // Entries in a vector of their own per call: EnqueueEach leaves those of a refused call.
    if (engine_) {
      engine_->EnqueueEach(entries, status);
    } else {
      for (uint32_t i = 0; i < n; ++i) {
        if (errors[i] == nullptr) status[i] = final_status_;
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (errors[i] != nullptr) {
        fail(i, errors[i]);
      } else if (!status[i].ok()) {
        fail(i, StatusToError(env, status[i]).Value());
      } else {
        Hold(env);
        ++queued;
      }
    }
  }
  // Kept before any JS runs (the deliveries below): a settle function's blocking call would
  // read its own batch into packed_.
  uint32_t token = 0;
  if (batch.record) {
    batch.record = false;
    if (failed == 0) token = Keep(batch);
  }
  // As the wake microtask does: when every peer already waits, run the cycle here.
  KOLO_TRACE_POINT("queued");
  if (queued > 0 && engine_ && !engine_->TryDriveOnce(queued)) {
    KOLO_TRACE_POINT("handed-off");
    engine_->Wake();
  }
  if (all_done != nullptr && failed == 0) {
    // Saved and restored around the delivery, should anything it runs queue a batch of its own.
    const Settler* outer_settler = direct_settler_;
    const size_t outer_calls = direct_calls_;
    direct_settler_ = settler.get();
    direct_calls_ = batch.calls.size();
    direct_done_ = false;
    DeliverInline(env);
    *all_done = direct_done_;
    direct_settler_ = outer_settler;
    direct_calls_ = outer_calls;
    direct_done_ = false;
  } else {
    DeliverInline(env);
  }
  // Calls still in flight hold the settler: pin what they need past this call. (A count of one
  // cannot grow again: only the batch's jobs copy it, and they were all made above.)
  if (settler.use_count() > 1) {
    settler->fn = Napi::Persistent(Napi::Function(env, settle));
    if (arrays != nullptr) settler->arrays = Napi::Persistent(Napi::Value(env, arrays));
  }
  settler->fn_in_call = nullptr;
  if (settler.use_count() == 1) spare_settler_ = std::move(settler);  // no call holds it
  if (failed > 0) {
    Napi::Function(env, settle).Call({failed_indices, failed_outcomes, env.Undefined(), Napi::Number::New(env, failed)});
  }
  KOLO_TRACE_POINT("returned");
  return token;
}

// A resolved promise's `then` runs its callback as a microtask: after the caller's synchronous
// code (and so after every request it submits in one go), before any timer or I/O callback.
void EngineWrap::ScheduleWake(Napi::Env env) {
  if (wake_scheduled_) return;
  if (wake_fn_.IsEmpty()) {
    wake_fn_ = Napi::Persistent(Napi::Function::New(
        env,
        [](const Napi::CallbackInfo& info) {
          auto* wrap = static_cast<EngineWrap*>(info.Data());
          wrap->wake_scheduled_ = false;
          // When every peer already waits for this rank, finish the cycle here instead of
          // handing it to the background thread (whose completions would hop back).
          if (wrap->engine_ && !wrap->engine_->TryDriveOnce()) wrap->engine_->Wake();
          wrap->DeliverInline(info.Env());
        },
        "wake", this));
  }
  Napi::Promise::Deferred ready = Napi::Promise::Deferred::New(env);
  ready.Resolve(env.Undefined());
  Napi::Object promise = ready.Promise();
  promise.Get("then").As<Napi::Function>().Call(promise, {wake_fn_.Value()});
  wake_scheduled_ = true;
}

// `enqueueSyncPacked` (NativeEngine.enqueueSync, packed by lib/pack-batch.ts as a batch of one
// call): the packed layout reads a request with a few N-API calls, where reading a request
// object's fields by name costs a property lookup (and a key string) each.
Napi::Value EngineWrap::EnqueueSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  KOLO_TRACE_POINT("call");
  PackedBatch& batch = packed_;
  const bool keep = keep_next_;
  keep_next_ = false;
  ReadPackedBatch(env, info, 3, batch);
  if (batch.calls.size() != 1) {
    throw Napi::TypeError::New(env, "Expected a batch of one call for enqueueSyncPacked");
  }
  batch.replay = false;
  batch.record = keep;
  if (keep) batch.views.assign(CountSlots(batch), View{});
  return RunSync(env, batch);
}

// Runs the one call of `batch` on this thread until it completes; keeps the batch where asked
// (batch.record) and the call was queued.
Napi::Value EngineWrap::RunSync(Napi::Env env, PackedBatch& batch, KeptBatch* kept) {
  JobPtr job;
  // The JS thread blocks until completion, so the arrays cannot be collected meanwhile.
  Status status;
  {
    std::vector<EntryPtr>& entries = entries_;
    const ClearOnExit clear{entries};  // what a failed read or enqueue left
    job = CallJob(env, batch, 0, kept, nullptr, entries);
    job->sync = true;
    status = engine_ ? engine_->Enqueue(entries, /*wake=*/false) : final_status_;
  }
  if (batch.record) {
    batch.record = false;
    if (status.ok()) Keep(batch);
  }
  if (!status.ok()) {
    StatusToError(env, status).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  // This thread would only wait, so it runs the cycles itself: no hand-off to the background
  // thread and back, which on a busy host costs more than the collective.
  KOLO_TRACE_POINT("queued");
  engine_->DriveUntil([&job] { return job->remaining.load(std::memory_order_acquire) == 0; });
  DeliverInline(env);
  // Finished on this thread (the usual case: it ran the cycles), it is done without a lock;
  // the acquire pairs with Finish's release of the last entry, after `error` and `done`.
  if (job->remaining.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(job->mu);
    job->cv.wait(lock, [&] { return job->remaining.load(std::memory_order_acquire) == 0; });
  }
  KOLO_TRACE_POINT("returned");
  if (!job->error.ok()) {
    StatusToError(env, job->error).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  // A call of one request that carries nothing (an allreduce writes into its output): one frozen
  // array of one frozen object, made once per engine and returned by every such call.
  const Napi::Value results = job->done.size() == 1 && !CarriesResult(job->done[0].get())
                                  ? Napi::Value(env, DoneResult(env))
                                  : JobResults(env, *job, EmptyResult(env), ResultMaker(env));
  Recycle(job);
  return results;
}

// `useResultMaker(fn)`: fn(data, ...splits) builds the results of a call of one request with
// per-rank sizes (allgather, alltoall, a new process set's id), as JobResults would
// (lib/results.ts).
Napi::Value EngineWrap::UseResultMaker(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "Expected a function for useResultMaker");
  result_maker_ = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

napi_value EngineWrap::ResultMaker(Napi::Env env) const {
  return result_maker_.IsEmpty() ? nullptr : static_cast<napi_value>(result_maker_.Value());
}

Napi::Value EngineWrap::StartTimeline(const Napi::CallbackInfo& info) {
  if (!info[0].IsString() || info[0].As<Napi::String>().Utf8Value().empty()) {
    throw Napi::TypeError::New(info.Env(), "Expected a file path for startTimeline");
  }
  if (engine_) engine_->SetTimeline(info[0].As<Napi::String>().Utf8Value(), info[1].ToBoolean());
  return info.Env().Undefined();
}

Napi::Value EngineWrap::StopTimeline(const Napi::CallbackInfo& info) {
  if (engine_) engine_->SetTimeline("", false);
  return info.Env().Undefined();
}

// `singleCopy()`: whether the job's collectives read the peers' memory with one copy.
Napi::Value EngineWrap::SingleCopy(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), engine_ && engine_->SingleCopy());
}

Napi::Value EngineWrap::Tuning(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!engine_) return env.Undefined();
  const TuningState state = engine_->Tuning();
  Napi::Object out = Napi::Object::New(env);
  const auto fusion = static_cast<double>(state.params.fusion_threshold_bytes);
  out.Set("fusionThresholdBytes", Napi::Number::New(env, fusion));
  out.Set("cycleTimeMs", Napi::Number::New(env, state.params.cycle_time_ms));
  out.Set("searching", Napi::Boolean::New(env, state.searching));
  return out;
}

Napi::Value EngineWrap::Shutdown(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  if (stopped_ || !engine_) {
    deferred.Resolve(env.Undefined());
    return deferred.Promise();
  }
  shutdown_waiters_.push_back(deferred);
  Hold(env);
  engine_->RequestShutdown();
  return deferred.Promise();
}

}  // namespace kolo

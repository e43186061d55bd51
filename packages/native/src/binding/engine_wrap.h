// The JS object behind `startEngine`: owns one Engine, its completion sink and the single
// thread-safe function through which every async completion reaches JS, batched per cycle.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "binding/job.h"
#include "engine/engine.h"
#include "rendezvous/store.h"

namespace kolo {

// What one trip through the thread-safe function carries.
struct Delivery {
  std::vector<JobPtr> jobs;
  std::optional<Status> started;
  std::optional<Status> stopped;
};

class EngineWrap;
void DeliverToJs(Napi::Env env, Napi::Function, EngineWrap* wrap, Delivery* delivery);
using CompletionFn = Napi::TypedThreadSafeFunction<EngineWrap, Delivery, DeliverToJs>;

class EngineWrap : public Napi::ObjectWrap<EngineWrap>, public CompletionSink {
 public:
  static Napi::Function Define(Napi::Env env);
  EngineWrap(const Napi::CallbackInfo& info);
  ~EngineWrap() override;

  // Stops every live engine in this process (environment teardown).
  static void StopAll();

  // Starts the engine described by a NativeEngineConfig; resolves with this object.
  void Start(Napi::Env env, const Napi::Object& config, Napi::Promise::Deferred deferred);

  // CompletionSink (engine thread).
  void Finish(EntryPtr entry, const Status& status) override;
  void EndOfCycle() override;
  void Started(const Status& status) override;
  void Stopped(const Status& status) override;

 private:
  friend void DeliverToJs(Napi::Env, Napi::Function, EngineWrap*, Delivery*);
  Napi::Value Enqueue(const Napi::CallbackInfo& info);
  Napi::Value EnqueueBatch(const Napi::CallbackInfo& info);
  Napi::Value EnqueueSync(const Napi::CallbackInfo& info);
  Napi::Value EnqueueRepeat(const Napi::CallbackInfo& info);
  Napi::Value EnqueueSyncRepeat(const Napi::CallbackInfo& info);
  Napi::Value KeepNextBatch(const Napi::CallbackInfo& info);
  // The enqueue methods every step calls are also functions of each engine's own (own
  // properties that shadow the prototype's), which reach it through their data pointer: a
  // prototype method finds its object with napi_unwrap, a private-symbol lookup on `this` that
  // cost 4% of a blocking 4 KiB allreduce. `Direct` outlives the engine and those functions,
  // whichever goes last; a call after the engine was collected throws.
  struct Direct {
    EngineWrap* wrap;
    int refs;
  };
  Direct* direct_ = nullptr;
  template <Napi::Value (EngineWrap::*Method)(const Napi::CallbackInfo&)>
  static Napi::Value CallDirect(const Napi::CallbackInfo& info);
  static void ReleaseDirect(Direct* direct);
  void DefineDirect(Napi::Env env, Napi::Object self);
  void ForgetDirect();  // the engine's share, in its destructor
  static size_t CountSlots(const PackedBatch& batch);
  Napi::Value Shutdown(const Napi::CallbackInfo& info);
  Napi::Value StartTimeline(const Napi::CallbackInfo& info);
  Napi::Value StopTimeline(const Napi::CallbackInfo& info);
  Napi::Value Tuning(const Napi::CallbackInfo& info);
  Napi::Value SingleCopy(const Napi::CallbackInfo& info);
  Napi::Value UseResultMaker(const Napi::CallbackInfo& info);
  void ScheduleWake(Napi::Env env);
  void Send(Delivery* delivery);
  void DeliverInline(Napi::Env env);
  void Deliver(Napi::Env env, Delivery& d);
  void Hold(Napi::Env env);
  void Release(Napi::Env env);
  void Teardown();

  std::unique_ptr<Engine> engine_;
  CompletionFn tsfn_;
  std::mutex batch_mu_;
  // Calls a cycle finished, handed over at its end. A cycle this thread ran gives the vector's
  // room back (its first completion then allocates nothing).
  std::vector<JobPtr> batch_;
  // Set with a push to batch_, cleared when EndOfCycle takes it (under batch_mu_).
  std::atomic<bool> batch_pending_{false};
  bool tsfn_open_ = false;

  // The JS thread, which runs cycles itself in enqueueSync and when every peer is ready.
  const std::thread::id js_thread_ = std::this_thread::get_id();

  // Main thread only.
  int holds_ = 0;
  // Calls finished by cycles this thread ran, settled before it returns to JS (no hop through
  // the thread-safe function to itself).
  std::vector<JobPtr> inline_done_;
  bool stopped_ = false;
  // Why the engine stopped; later requests reject with it (a failure keeps naming its cause).
  Status final_status_ = Status::Error(StatusCode::kShutDown, ShutDownMessage());
  std::optional<Napi::Promise::Deferred> start_deferred_;
  std::vector<Napi::Promise::Deferred> shutdown_waiters_;
  Napi::ObjectReference self_;
  // Async requests wake the engine from a microtask, once per turn of JS code, so requests
  // submitted together (a loop of allreduce calls) reach the engine's next cycle together.
  bool wake_scheduled_ = false;
  Napi::FunctionReference wake_fn_;
  // What reading a packed batch reuses from one call to the next: the batch and a call's
  // entries. Only while the batch is read and queued, before any JS runs, so a call made from
  // JS that this one runs cannot find them in use.
  PackedBatch packed_;
  // Batches enqueuePacked and enqueueSyncPacked kept (after keepNextBatch) for enqueueRepeat
  // and enqueueSyncRepeat, by token: more than a step's distinct turns and blocking calls need;
  // past that, the one least recently queued makes room.
  struct KeptBatch {
    uint64_t used = 0;    // when last queued, in keeps and repeats
    uint32_t token = 0;
    uint64_t serial = 0;  // which keep this is (a token may name another batch later)
    PackedBatch batch;
    // Per call, the job that last ran it, delivered, with its entries as they were queued: the
    // next repeat queues them again instead of reading the call and making new ones (null
    // until a repeat of the call was delivered, and while one is in flight).
    std::vector<JobPtr> spares;
  };
  static constexpr size_t kMaxKept = 256;
  std::unordered_map<uint32_t, std::unique_ptr<KeptBatch>> kept_;
  uint32_t last_token_ = 0;
  uint64_t uses_ = 0;
  uint64_t keeps_ = 0;
  bool keep_next_ = false;
  // Moves `batch` (read by ReadPackedBatch, numbers still the caller's) into a kept slot; returns
  // its token.
  uint32_t Keep(PackedBatch& batch);
  uint32_t NextToken() const;
  KeptBatch* FindKept(napi_value token);
  // With `all_done` given, a batch whose every call finishes inside this call with nothing to
  // report (no results, no error) is not settled through `settle`: *all_done is set instead,
  // and the caller settles each call as done (EnqueueRepeat's answer).
  uint32_t QueueBatch(Napi::Env env, PackedBatch& batch, napi_value settle, napi_value arrays,
                      KeptBatch* kept = nullptr, bool* all_done = nullptr);
  // The job of call `i` of `batch` (`kept`'s, or null), its entries in `entries`, ready to
  // queue: from TakeSpare where the kept batch has it, else read anew (and, for a kept batch,
  // marked to go back to it once delivered). Throws Napi::Error on a malformed call.
  JobPtr CallJob(Napi::Env env, PackedBatch& batch, uint32_t i, KeptBatch* kept,
                 const std::shared_ptr<Settler>& settler, std::vector<EntryPtr>& entries);
  // Call `i` of `kept` as its last delivered run left it, ready to queue: its job (for
  // `settler`) with its entries moved to `entries`. Null when it has none.
  JobPtr TakeSpare(KeptBatch& kept, uint32_t i, const std::shared_ptr<Settler>& settler,
                   std::vector<EntryPtr>& entries);
  // Hands a delivered job of a kept batch back to it (see KeptBatch::spares), when it finished
  // well and that batch is still kept; otherwise leaves it to be freed.
  void Recycle(JobPtr& job);
  Napi::Value RunSync(Napi::Env env, PackedBatch& batch, KeptBatch* kept = nullptr);
  // Values every completion of a call that carries nothing shares, made on first use: the
  // frozen {} and [{}] such a call resolves with (enqueueSync returns the array), and the frozen
  // [] of a settle call whose calls all carry nothing.
  napi_value EmptyResult(Napi::Env env);
  napi_value DoneResult(Napi::Env env);
  napi_value NoOutcomes(Napi::Env env);
  Napi::ObjectReference empty_result_;
  Napi::ObjectReference done_result_;
  Napi::ObjectReference no_outcomes_;
  // The JS function that builds a call's results from its data and per-rank sizes
  // (lib/results.ts), set by useResultMaker: one call into JS builds them where N-API would set
  // each property and element on its own (half a microsecond each). Null until set.
  napi_value ResultMaker(Napi::Env env) const;
  Napi::FunctionReference result_maker_;
  // The `indices` of a settle call: one Uint32Array the engine keeps and refills (a settle
  // function reads the first `count` during the call), grown when a delivery needs more.
  napi_value Indices(Napi::Env env, const std::vector<uint32_t>& indices);
  Napi::ObjectReference indices_;
  uint32_t* indices_data_ = nullptr;
  size_t indices_capacity_ = 0;
  std::vector<EntryPtr> entries_;
  // QueueBatch's entries and status of each call, reused from one batch to the next.
  std::vector<std::vector<EntryPtr>> call_entries_;
  std::vector<Status> call_status_;
  std::vector<napi_value> call_errors_;
  // The settler of the last enqueueBatch whose calls all finished inside it (nothing else holds
  // it), for the next one: one allocation less per turn of JS.
  std::shared_ptr<Settler> spare_settler_;
  // A delivery's calls of each enqueueBatch, for one settle call per batch: reused from one
  // delivery to the next (they allocated three vectors each time), except by a delivery that a
  // settle function's own blocking call makes while the outer one still uses them.
  struct Settled {
    Settler* settler = nullptr;
    std::vector<uint32_t> indices;
    std::vector<napi_value> outcomes;  // nullptr: `done`
    bool any_done = false;
  };
  std::vector<Settled> settled_;
  bool settling_ = false;
  // While QueueBatch delivers with `all_done` asked: its batch's settler and call count, and
  // whether Deliver found every call done and so left them to QueueBatch's caller.
  const Settler* direct_settler_ = nullptr;
  size_t direct_calls_ = 0;
  bool direct_done_ = false;
};

}  // namespace kolo

// The engine: one background thread per process that, every cycle, sends this rank's new
// requests to the coordinator, receives the agreed response list, and executes it on the
// transport. Completions leave through a CompletionSink, batched per cycle.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/autotune.h"
#include "engine/coordinator.h"
#include "engine/kv_store.h"
#include "engine/response_cache.h"
#include "engine/tensor_queue.h"
#include "transport/transport.h"

namespace kolo {

// Longest an idle rank sleeps between cycles.
inline constexpr int kIdleWakeMs = 50;
// What each further call of a caller's turn adds to its spin (TryDriveOnce): a peer running the
// same turn spends about as long submitting it, so how late it arrives grows with the calls. 200
// separate calls on 2 ranks: with a flat 50 µs, 21–38% of the turns went to the background
// thread and back (about 150 µs more each); with this, 2–28%.
inline constexpr int64_t kCallerSpinPerCallUs = 1;
// How often a cycle checks that the launcher's store is still there.
inline constexpr int kStoreCheckMs = 10;

struct EngineConfig {
  int rank = 0;
  int size = 1;
  double cycle_time_ms = 1.0;
  int64_t fusion_threshold_bytes = 128 << 20;
  int64_t timeout_ms = 30000;
  int local_rank = 0;
  int cross_rank = 0;
  int cross_size = 1;
  // Reduce within each host, allreduce across hosts among local rank 0s, broadcast back.
  bool hierarchical_allreduce = false;
  StallConfig stall;
  std::string timeline_path;  // empty: no timeline (only rank 0 writes one)
  bool timeline_mark_cycles = false;
  // Names negotiated once are later agreed by a one-byte vote (Horovod's response cache);
  // 0 disables the cache.
  size_t response_cache_capacity = 1024;
  // Where the failure keys of kv_store.h live: "kolo/", or "kolo/elastic/gen<g>/" in elastic
  // generation g > 0.
  std::string failure_key_prefix = "kolo/";
  // Rank 0 searches the fusion threshold and cycle time; every rank applies its choice.
  AutotuneConfig autotune;
  // Callers may run cycles on their own thread (DriveUntil, TryDriveOnce). Off when the caller's
  // thread also serves the rendezvous store: a cycle that connects a new process set waits on
  // the store, which that thread could then never answer.
  bool caller_cycles = true;
  // How long a caller that queued requests waits for the other ranks' callers to do the same,
  // so that every rank runs the cycle on its own thread (no hand-off to the background thread
  // and back). 0: hand off at once unless every peer already waits.
  int64_t caller_spin_us = 50;
  // How often an idle background thread runs a cycle anyway (tests that must control every
  // cycle raise it).
  int64_t idle_wake_ms = kIdleWakeMs;
};

// The coordinator ended the job (a stall past its shutdown time).
class StallAbort : public std::runtime_error {
 public:
  StallAbort(const std::string& what, int rank) : std::runtime_error(what), rank_(rank) {}
  int rank() const { return rank_; }

 private:
  int rank_;
};

class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  // Called on the background thread for every entry that has an owner.
  virtual void Finish(EntryPtr entry, const Status& status) = 0;
  // Called once after every cycle that finished something, and once when the engine stops.
  virtual void EndOfCycle() = 0;
  // Startup finished (ok or not); then, after the loop exits, Stopped with the final status.
  virtual void Started(const Status& status) = 0;
  virtual void Stopped(const Status& status) = 0;
};

// Everything the background thread builds at startup (it may block on rendezvous).
struct Connection {
  std::unique_ptr<KeyValueStore> store;
  std::unique_ptr<Transport> transport;
  // Connects this rank to the other members of a process set (blocks until all have joined).
  // `ranks` are the set's global ranks in order; `rank` is this process's position among them.
  std::function<std::unique_ptr<Transport>(const std::string& scope,
                                           const std::vector<int>& ranks, int rank)>
      connect_subset;
  // Connects the ranks of this host for the hierarchical allreduce's per-host stage; when empty,
  // connect_subset does.
  std::function<std::unique_ptr<Transport>(const std::string& scope,
                                           const std::vector<int>& ranks, int rank)>
      connect_local;
};

// The ranks one collective runs over: everyone (process set 0) or a registered process set.
struct Group {
  std::vector<int> ranks;  // global ranks, in set order
  int rank = -1;           // this process's position in `ranks`; -1 when not a member
  Transport* transport = nullptr;
  std::unique_ptr<Transport> owned;
  int size() const { return static_cast<int>(ranks.size()); }
};

// The per-host and cross-host groups of the hierarchical allreduce.
struct Hierarchy {
  Group local;   // ranks on this host
  Group cross;   // local rank 0 of every host (this rank is a member only if local rank 0)
  bool enabled = false;
};
using Connector = std::function<Connection()>;

class Engine {
 public:
  Engine(EngineConfig config, Connector connect, CompletionSink* sink);
  ~Engine();  // requests shutdown and joins the thread

  // Queues entries (all or none). Fails at once if shut down or a name is already in flight.
  // With `wake` false, an idle background thread notices them at the next Wake() (or its idle
  // wake-up), so a caller can submit a burst that negotiates and fuses in one cycle.
  // The entries move out of `entries` when queued (the vector keeps its capacity for reuse).
  Status Enqueue(std::vector<EntryPtr>& entries, bool wake = true);
  Status Enqueue(std::vector<EntryPtr>&& entries, bool wake = true) { return Enqueue(entries, wake); }
  // Enqueue(calls[i], false) for each i < statuses.size() where statuses[i] is ok on entry (the others are left
  // alone), in order, under one lock: a turn of 200 calls took two lock pairs per call. Each
  // call's status replaces statuses[i]; each call is queued whole or not at all, as Enqueue.
  void EnqueueEach(std::vector<std::vector<EntryPtr>>& calls, std::vector<Status>& statuses);
  // Starts a cycle now if the background thread is idle.
  void Wake();
  // Runs negotiation cycles on the calling thread until `done()` holds, so a blocking call
  // completes without two thread hand-offs. Returns early (leaving the rest to the background
  // thread) when this transport must stay on one thread, or once the engine is stopping; the
  // caller then waits for its entries as usual. Call after Enqueue(entries, false).
  void DriveUntil(const std::function<bool()>& done);
  // Runs one cycle on the calling thread when that cannot block: the cycle lock is free and
  // every peer already waits in the negotiation (the transport says so), or joins it within the
  // caller's spin: caller_spin_us, plus kCallerSpinPerCallUs for each of the turn's `calls`
  // after the first. Where the votes travel in the transport's in-place round, this rank's are
  // published first and the spin waits for the peers' (a peer that comes later finds them
  // there); otherwise the caller announces the cycle and waits for the peers' announcements.
  // Returns whether it ran the cycle (then it has woken the background thread for whatever is
  // still in flight); when not, the cycle may have begun, and the caller wakes the background
  // thread, which ends it.
  bool TryDriveOnce(size_t calls = 1);
  // Asks every rank to stop after the current cycle. Idempotent; returns immediately.
  void RequestShutdown();
  // Waits for the background thread to exit.
  void Join();
  // Starts (non-empty path) or stops the timeline from the next cycle on; rank 0 only writes.
  void SetTimeline(const std::string& path, bool mark_cycles);
  const EngineConfig& config() const { return config_; }
  // How many times cycles fused a set of cache hits afresh rather than reusing a recent one.
  uint64_t FusionsOfHits() const { return fusions_of_hits_.load(std::memory_order_relaxed); }
  // The fusion threshold and cycle time in force, and whether the autotuner is still searching.
  TuningState Tuning() const;
  // Whether the job's transport moves collectives with one copy from the peers' memory (set
  // once connected).
  bool SingleCopy() const { return single_copy_.load(std::memory_order_relaxed); }

 private:
  void Run();
  void Loop();
  enum class CyclePart { kWhole, kBegin, kEnd };
  void CallerCycle(CyclePart part);
  bool RunCycle();
  // A cycle in two halves (RunCycle runs both): BeginCycle takes the queued requests, casts
  // this rank's votes and publishes them (with the speculated data) where the transport offers
  // an in-place round; EndCycle waits for every rank's, agrees and performs. Between the two
  // the cycle is in flight (cycle_.begun): whoever takes the cycle lock next must end it first.
  void BeginCycle();
  bool EndCycle();
  // Whether this cycle's votes travel in the transport's in-place round (else an allreduce, or
  // with the response cache off no votes: every cycle negotiates in full).
  bool VotesTravelInPlace() const;
  void WaitForWork();
  // The two halves of agreeing on a cycle's responses (BeginCycle's and EndCycle's): votes cast
  // and published for the requests `mine`, at `now_ms` (the cycle's start on NowMs's clock, for
  // how long requests have waited); then every rank's votes reduced and the responses agreed.
  // Those of cache hits come back in `*hits` (null when none; valid until the next cycle), to be
  // performed before the list's.
  void BeginNegotiation(const std::vector<const Request*>& mine, int64_t now_ms);
  ResponseList EndNegotiation(const std::vector<const Request*>& mine,
                              const std::vector<Response>** hits);
  ResponseList NegotiateFully(RequestList mine);
  // The fused responses of the cache entries `ready`: a set fused in a recent cycle (with no cache
  // change or new fusion threshold since) is reused, not fused again.
  const std::vector<Response>* FuseHits(const std::vector<size_t>& ready);
  // This rank's votes on the cache entries, into votes_.
  void CastVotes(const std::vector<const Request*>& requests, std::vector<Request>& uncached,
                 int64_t now_ms);
  // Reduces the votes over every rank by minimum, in two halves. Where the transport offers an
  // in-place round, PublishVotes writes them to this rank's outbox with the data of the cached
  // allreduces this rank votes ready, of the cached broadcasts it is the root of and its rows of
  // cached allgathers (Speculate), and publishes; CollectVotes waits for every rank's and
  // reduces them. When every rank sent all of its own data, those entries complete from it
  // without another round: CollectVotes returns every rank's published bytes then, and null
  // otherwise (and always where the votes go by allreduce, which CollectVotes runs).
  void PublishVotes(std::vector<char>& votes);
  const char* const* CollectVotes(std::vector<char>& votes);
  // Writes that data into `out` (at most `room` bytes); true when all of it fits and was
  // written, with `end` the bytes it takes.
  bool Speculate(const std::vector<char>& votes, char* out, size_t room, size_t& end);
  // Completes the cache entries `ready` (agreed this cycle) from the data CollectVotes brought.
  void PerformSpeculated(const std::vector<size_t>& ready, const char* const* published);
  void PerformSpeculatedAllgather(TensorEntry& entry, const Response& response,
                                  const char* const* published, size_t index);
  void Perform(const Response& response);
  void ApplyTimelineRequest();
  void StartAutotune();
  TuningVote OwnTuningVote() const;
  void AdoptTuning(const char* vote);
  void Tune(std::chrono::steady_clock::time_point cycle_start);
  void Phase(const std::vector<EntryPtr>& entries, const char* activity);
  void PhaseEnd(const std::vector<EntryPtr>& entries);
  void Fail(std::vector<EntryPtr> entries, const Status& status);
  Status DescribeFailure(const TransportError& error);
  std::vector<EntryPtr> TakeEntries(const Response& response);

  Status CheckMembership(const std::vector<EntryPtr>& entries);
  // Under state_mu_: why nothing may be queued now (stopped, or shutting down), else ok.
  Status RefusalLocked() const;
  void ConnectHierarchy();
  void GroupAllreduce(Group& g, void* data, int64_t count, DataType dtype, ReduceOp op);
  void GroupAllreduceInto(Group& g, const void* in, void* out, int64_t count, DataType dtype,
                          ReduceOp op, double postscale);
  // Whether allreduces over `g` take the hierarchical path (every rank, with hierarchy on).
  bool Hierarchical(const Group& g) const;
  const char* AllreduceActivity(const Group& g) const;
  void ChangeProcessSets(const Response& response);

  void ExecuteAllreduce(Group& g, std::vector<EntryPtr>& entries, const Response& response);
  void ExecuteAllgather(Group& g, TensorEntry& entry, const Response& response);
  void ExecuteBroadcast(Group& g, TensorEntry& entry, const Response& response);
  void ExecuteAlltoall(Group& g, TensorEntry& entry, const Response& response);
  void ExecuteReducescatter(Group& g, TensorEntry& entry, const Response& response);

  EngineConfig config_;
  Connector connect_;
  CompletionSink* sink_;
  Connection connection_;
  std::atomic<bool> single_copy_{false};
  std::unique_ptr<Coordinator> coordinator_;
  TensorQueue queue_;
  std::vector<const Request*> popped_;  // this cycle's requests (RunCycle), reused every cycle
  // What a begun cycle's second half needs (BeginCycle to EndCycle; under cycle_mu_).
  struct CycleInFlight {
    bool begun = false;
    bool shutdown = false;   // shutdown_requested_ when the cycle began
    std::chrono::steady_clock::time_point now;  // when it began (EndCycle tunes by it)
    std::vector<Request> uncached;  // this rank's requests for the coordinator (CastVotes)
    size_t speculated_end = 0;      // bytes of speculated data after the votes (PublishVotes)
  } cycle_;
  std::vector<char> fusion_buffer_;
  std::vector<BufferSegment> segments_;  // ExecuteAllreduce's, reused every cycle
  std::vector<EntryPtr> stranded_;  // taken for a collective whose transport call failed
  // What the cycle is doing, for failure messages: "negotiation", "allreduce of 'grad'". Kept
  // as its parts and joined only when a message needs it: Perform sets it for every response,
  // and building the string there cost a few allocations per collective.
  struct CurrentOp {
    const char* what = "startup";
    std::string name;  // the collective's first tensor (quoted), or a detail; empty for none
    bool quoted = false;
    void Set(const char* w) {
      what = w;
      name.clear();
    }
    void Set(const char* w, const std::string& n, bool q) {
      what = w;
      name.assign(n);
      quoted = q;
    }
    std::string Describe() const;
  } current_op_;
  Timeline timeline_;
  std::mutex timeline_mu_;
  std::atomic<bool> timeline_requested_{false};  // set under timeline_mu_
  std::string timeline_path_;
  bool timeline_mark_cycles_ = false;
  bool joined_ = false;
  bool last_cycle_quiet_ = true;
  std::chrono::steady_clock::time_point next_cycle_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_store_check_;
  ResponseCache cache_;
  // Per cache index: when this rank submitted it (ms) while it waits for the other ranks, or
  // kNotPending; with the number of such entries.
  static constexpr int64_t kNotPending = -1;
  std::vector<int64_t> pending_since_;
  size_t pending_count_ = 0;
  // Recent cycles' cache hits and their fused responses: a training loop submits the same
  // tensors every step, and then reuses them instead of copying and fusing every response again.
  // A step often has more than one such set (the gradients, then a metric or a grouped call), so
  // the most recently used kFusedHitSets are kept, not only the last.
  struct FusedHits {
    std::vector<size_t> indices;
    uint64_t generation = 0;
    int64_t threshold = -1;
    uint64_t last_used = 0;  // 0: never filled
    std::vector<Response> responses;
  };
  static constexpr size_t kFusedHitSets = 8;
  std::array<FusedHits, kFusedHitSets> fused_hits_;
  uint64_t fused_hits_clock_ = 0;
  std::atomic<uint64_t> fusions_of_hits_{0};
  // The negotiation's and CastVotes's working vectors, reused every cycle.
  std::vector<char> votes_;
  std::vector<std::optional<size_t>> vote_hits_;
  std::vector<char> vote_changed_;
  std::vector<size_t> ready_;
  // Where each rank's data for cache entry i lies in what it published (rank * cache size + i),
  // for the entries it voted ready; with the names and entries PerformSpeculated takes. Reused.
  std::vector<uint32_t> speculated_at_;
  // Views of cache entries' names (which stay put while a cycle reads them), and what the queue
  // holds under each.
  std::vector<std::string_view> speculated_names_;
  std::vector<const TensorEntry*> speculated_peeks_;
  std::vector<EntryPtr> speculated_entries_;
  std::vector<size_t> gather_offsets_;  // PerformSpeculatedAllgather's, reused
  int64_t last_full_negotiation_ms_ = 0;
  std::map<int32_t, Group> groups_;  // background thread only
  std::unique_ptr<Autotuner> autotuner_;  // rank 0 with autotune on
  AutotuneLog autotune_log_;
  int64_t tuning_bytes_ = 0;  // allreduced this cycle
  mutable std::mutex tuning_mu_;
  TuningState tuning_state_;  // under tuning_mu_, for Tuning() on any thread
  Hierarchy hierarchy_;
  std::mutex sets_mu_;
  std::map<int32_t, std::vector<int>> set_members_;  // for checks on the calling thread

  // Wakes an idle background thread when work or a shutdown request arrives.
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool wake_pending_ = false;  // under wake_mu_
  std::mutex state_mu_;
  bool stopped_ = false;
  Status final_status_;
  std::atomic<bool> shutdown_requested_{false};

  // Held by whichever thread runs a cycle: the background thread, or a caller in DriveUntil.
  // Everything the cycles touch (transports, coordinator, cache, timeline) is used under it.
  std::mutex cycle_mu_;
  // Under cycle_mu_: the loop is over (a cycle agreed to shut down or failed); what remains
  // (failing entries, the final barrier, teardown) is the background thread's.
  bool loop_over_ = false;
  std::exception_ptr caller_failure_;  // a driving caller's cycle threw; rethrown by Run
  bool caller_may_drive_ = false;      // set once connected: the transport is thread-agnostic
  std::atomic<int> drivers_{0};        // callers inside DriveUntil
  std::thread thread_;
};

std::string ShutDownMessage();

}  // namespace kolo

#include "engine/engine.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

#include "engine/kernels.h"
#include "engine/trace_points.h"

namespace kolo {

std::string ShutDownMessage() {
  return "Kolo has been shut down. This was caused by a call to shutdown() on one of the ranks "
         "(every rank stops together) or an exception in the background thread. Call init() "
         "again to start a new engine.";
}

namespace {

// Timeline names of the transport phase, as Horovod's Gloo ops name them.
const char* TransportActivity(RequestType type) {
  switch (type) {
    case RequestType::kAllreduce: return "GLOO_ALLREDUCE";
    case RequestType::kAllgather: return "GLOO_ALLGATHER";
    case RequestType::kBroadcast: return "GLOO_BCAST";
    case RequestType::kAlltoall: return "GLOO_ALLTOALL";
    case RequestType::kReducescatter: return "GLOO_REDUCESCATTER";
    case RequestType::kBarrier: return "GLOO_BARRIER";
    default: return "QUEUE";
  }
}

}  // namespace

Engine::Engine(EngineConfig config, Connector connect, CompletionSink* sink)
    : config_(config),
      connect_(std::move(connect)),
      sink_(sink),
      cache_(config.response_cache_capacity) {
  if (!config_.timeline_path.empty()) SetTimeline(config_.timeline_path, config_.timeline_mark_cycles);
  StartAutotune();
  thread_ = std::thread([this] {
    KOLO_TRACE_BACKGROUND();
    Run();
  });
}

void Engine::SetTimeline(const std::string& path, bool mark_cycles) {
  std::lock_guard<std::mutex> lock(timeline_mu_);
  timeline_requested_ = true;
  timeline_path_ = path;
  timeline_mark_cycles_ = mark_cycles;
}

void Engine::ApplyTimelineRequest() {
  // Every cycle asks; a request is rare, so the lock is taken only when there is one.
  if (!timeline_requested_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(timeline_mu_);
  if (!timeline_requested_.exchange(false)) return;
  if (config_.rank != 0) return;
  std::string error;
  if (timeline_path_.empty()) {
    timeline_.Close();
  } else if (!timeline_.Open(timeline_path_, timeline_mark_cycles_, &error)) {
    std::fprintf(stderr, "Kolo WARNING: %s; continuing without a timeline.\n", error.c_str());
  }
  coordinator_->SetTimeline(timeline_.active() ? &timeline_ : nullptr);
}

Engine::~Engine() {
  RequestShutdown();
  Join();
  KOLO_TRACE_DUMP(config_.rank);
}

void Engine::RequestShutdown() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    shutdown_requested_ = true;
  }
  wake_cv_.notify_all();
}

void Engine::Join() {
  if (thread_.joinable()) thread_.join();
}

Status Engine::RefusalLocked() const {
  if (stopped_) return final_status_;
  if (shutdown_requested_) return Status::Error(StatusCode::kShutDown, ShutDownMessage());
  return Status::Ok();
}

Status Engine::Enqueue(std::vector<EntryPtr>& entries, bool wake) {
  for (EntryPtr& e : entries) e->request.rank = config_.rank;
  Status status;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    status = RefusalLocked();
    if (!status.ok()) return status;
    status = CheckMembership(entries);
    if (!status.ok()) return status;
    status = queue_.Add(entries);
  }
  if (status.ok() && wake) Wake();
  return status;
}

void Engine::EnqueueEach(std::vector<std::vector<EntryPtr>>& calls, std::vector<Status>& statuses) {
  std::lock_guard<std::mutex> lock(state_mu_);
  const Status refused = RefusalLocked();
  for (size_t i = 0; i < statuses.size(); ++i) {
    if (!statuses[i].ok()) continue;
    if (!refused.ok()) {
      statuses[i] = refused;
      continue;
    }
    for (EntryPtr& e : calls[i]) e->request.rank = config_.rank;
    statuses[i] = CheckMembership(calls[i]);
  }
  if (refused.ok()) queue_.AddEach(calls, statuses);
}

void Engine::Wake() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    wake_pending_ = true;
  }
  wake_cv_.notify_all();
}

// A rank with nothing in flight sleeps until it has work, so an idle job does not spin.
// Ranks with work block in the coordinator's gather meanwhile, which costs no CPU; the
// idle wake-up bounds how late this rank notices a dead peer or a stop request.
void Engine::WaitForWork() {
  std::unique_lock<std::mutex> lock(wake_mu_);
  // While a caller drives cycles, its entries' being in flight is no reason to compete with it.
  wake_cv_.wait_for(lock, std::chrono::milliseconds(config_.idle_wake_ms), [&] {
    return shutdown_requested_ || wake_pending_ ||
           (drivers_.load() == 0 && queue_.InFlight() > queue_.Unsent());
  });
  wake_pending_ = false;
  KOLO_TRACE_POINT("woken");
}

void Engine::Run() {
  // Callers that try to drive a cycle wait here until the transport is up.
  std::unique_lock<std::mutex> cycle_lock(cycle_mu_);
  try {
    connection_ = connect_();
    Group everyone;
    for (int r = 0; r < config_.size; ++r) everyone.ranks.push_back(r);
    everyone.rank = config_.rank;
    everyone.transport = connection_.transport.get();
    groups_[0] = std::move(everyone);
    if (config_.hierarchical_allreduce && config_.cross_size > 1) ConnectHierarchy();
    if (config_.rank == 0) {
      coordinator_ = std::make_unique<Coordinator>(config_.size, config_.fusion_threshold_bytes,
                                                   config_.stall);
    }
  } catch (const std::exception& e) {
    Status status = Status::Error(
        StatusCode::kCommunication,
        std::string("Kolo could not connect rank ") + std::to_string(config_.rank) + " of " +
            std::to_string(config_.size) + " to its peers: " + e.what());
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      stopped_ = true;
      final_status_ = status;
    }
    loop_over_ = true;
    cycle_lock.unlock();
    Fail(queue_.TakeAll(), status);
    sink_->Started(status);
    sink_->Stopped(status);
    return;
  }
  bool any_thread = connection_.transport->Capabilities().any_thread;
  if (hierarchy_.enabled) {
    if (hierarchy_.local.transport) any_thread = any_thread && hierarchy_.local.transport->Capabilities().any_thread;
    if (hierarchy_.cross.transport) any_thread = any_thread && hierarchy_.cross.transport->Capabilities().any_thread;
  }
  caller_may_drive_ = any_thread && config_.caller_cycles;
  single_copy_.store(connection_.transport->SingleCopy(), std::memory_order_relaxed);
  cycle_lock.unlock();
  sink_->Started(Status::Ok());

  Status final_status = Status::Error(StatusCode::kShutDown, ShutDownMessage());
  bool clean = false;
  try {
    Loop();
    clean = true;
  } catch (const StallAbort& e) {
    final_status = Status::Error(StatusCode::kTimeout, e.what(), e.rank());
    clean = true;
  } catch (const TransportError& e) {
    final_status = DescribeFailure(e);
  } catch (const std::exception& e) {
    final_status = Status::Error(StatusCode::kInternal,
                                 std::string("Kolo's background thread failed during ") +
                                     current_op_.Describe() + ": " + e.what());
  }
  cycle_lock.lock();
  loop_over_ = true;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    stopped_ = true;
    final_status_ = final_status;
  }
  Fail(std::move(stranded_), final_status);
  Fail(queue_.TakeAll(), final_status);
  sink_->EndOfCycle();
  if (clean) {
    // Let every peer read the last response before sockets close (Gloo resets on close).
    try {
      connection_.transport->Barrier();
    } catch (const std::exception&) {
    }
  }
  groups_.clear();
  hierarchy_ = Hierarchy();
  connection_.transport.reset();
  timeline_.Close();
  sink_->Stopped(final_status);
}

// The background thread's loop; returns once every rank agreed to shut down (a caller's cycle
// may have been the one that agreed), and rethrows a failure from a caller's cycle.
void Engine::Loop() {
  while (true) {
    WaitForWork();
    std::lock_guard<std::mutex> lock(cycle_mu_);
    if (caller_failure_) std::rethrow_exception(std::exchange(caller_failure_, nullptr));
    if (loop_over_) return;
    if (!RunCycle()) {
      loop_over_ = true;
      return;
    }
  }
}

// One cycle, or its first or second half (`part`), on a caller's thread (cycle_mu_ held). A
// failure ends the loop; Run reports it (naming the failed rank) and fails every entry, the
// caller's included.
void Engine::CallerCycle(CyclePart part) {
  try {
    if (part == CyclePart::kBegin) {
      BeginCycle();
    } else if (!(part == CyclePart::kEnd ? EndCycle() : RunCycle())) {
      loop_over_ = true;
    }
  } catch (...) {
    caller_failure_ = std::current_exception();
    loop_over_ = true;
  }
}

void Engine::DriveUntil(const std::function<bool()>& done) {
  drivers_.fetch_add(1);
  while (!done()) {
    std::unique_lock<std::mutex> lock(cycle_mu_);
    if (loop_over_ || !caller_may_drive_ || done()) break;
    CallerCycle(CyclePart::kWhole);
    if (loop_over_) {
      lock.unlock();
      Wake();
      break;
    }
  }
  // In-flight entries of other calls (async ones) are the background thread's again.
  drivers_.fetch_sub(1);
  if (queue_.InFlight() > 0) Wake();
}

bool Engine::TryDriveOnce(size_t calls) {
  std::unique_lock<std::mutex> lock(cycle_mu_, std::try_to_lock);
  if (!lock.owns_lock() || loop_over_ || !caller_may_drive_ || cycle_.begun || !queue_.HasUnsent()) {
    return false;
  }
  Transport& t = *connection_.transport;
  const bool waiting = t.PeersWaiting();
  if (!waiting && config_.caller_spin_us <= 0) return false;
  const int64_t spin_us =
      config_.caller_spin_us + kCallerSpinPerCallUs * static_cast<int64_t>(calls > 0 ? calls - 1 : 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
  // With more ranks than CPUs the peers need this CPU to get on: yield on every poll (4 ranks
  // on 2 cores, 4 KiB awaited, alternating runs: 0.87-0.94x the time of yielding every 32nd).
  const int yield_every = t.YieldWhileWaiting() ? 1 : 32;
  const auto spin_until = [&](auto ready) {
    bool now_ready = ready();
    for (int i = 1; !now_ready && std::chrono::steady_clock::now() < deadline; ++i) {
      if (i % yield_every == 0) std::this_thread::yield();
      now_ready = ready();
    }
    return now_ready;
  };
  // As in DriveUntil: while this thread runs the cycle, the entries it took from the queue are
  // in flight, and the background thread must not take that as its cue to run one after it.
  drivers_.fetch_add(1);
  bool ran = true;
  if (!waiting && VotesTravelInPlace()) {
    // Publish this rank's votes (the cycle's first half), then give the peers a moment to
    // publish theirs: where every peer has, the cycle ends here. Otherwise it stays begun and
    // the background thread ends it (waiting for the peers there), as it would any cycle.
    CallerCycle(CyclePart::kBegin);
    if (!loop_over_ && spin_until([&] { return t.InPlaceArrived(); })) {
      CallerCycle(CyclePart::kEnd);
    } else {
      ran = false;
    }
  } else if (!waiting) {
    // Votes that go by allreduce cannot be published ahead: announce the cycle and give the
    // peers' callers a moment to announce theirs. A rank that sees every peer announced (or
    // waiting) runs the cycle here; one that gives up withdraws and hands the cycle to its
    // background thread, which a peer that already started waits for.
    ran = t.AnnounceNext(true) && spin_until([&] { return t.PeersReady(); });
    if (ran) {
      CallerCycle(CyclePart::kWhole);
    } else {
      t.AnnounceNext(false);
    }
  } else {
    CallerCycle(CyclePart::kWhole);
  }
  lock.unlock();
  drivers_.fetch_sub(1);
  // Where the cycle did not run here, the caller wakes the background thread (one wake: a second
  // could start an idle cycle that then holds the cycle lock while it waits for the peers).
  if (ran && (loop_over_ || queue_.InFlight() > 0)) Wake();
  return ran;
}

// Runs one cycle (or ends the one a caller began); the caller holds cycle_mu_. Returns false
// once every rank agreed to shut down.
bool Engine::RunCycle() {
  if (!cycle_.begun) BeginCycle();
  return EndCycle();
}

void Engine::BeginCycle() {
  auto cycle = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double, std::milli>(config_.cycle_time_ms));
  // A poll of the store's socket, at most every kStoreCheckMs rather than every cycle.
  auto now = std::chrono::steady_clock::now();
  if (connection_.store && now - last_store_check_ >= std::chrono::milliseconds(kStoreCheckMs)) {
    last_store_check_ = now;
    if (!connection_.store->Alive()) {
      throw TransportError("the rendezvous store (hosted by the launcher) closed its connection, "
                           "so the launcher has exited");
    }
  }
  // A cycle starts at once while requests are moving (this rank's enqueue woke it, or some rank
  // sent requests last cycle, so a peer may be about to complete ours): one op then costs
  // microseconds, not a cycle. Only after a cycle in which no rank sent anything does the cycle
  // time pace the loop, so ranks whose requests wait on each other do not spin.
  if (next_cycle_ > now && last_cycle_quiet_ && !queue_.HasUnsent()) {
    std::this_thread::sleep_until(next_cycle_);
    now = std::chrono::steady_clock::now();
  }
  next_cycle_ = now + cycle;

  KOLO_TRACE_POINT("cycle");
  queue_.PopRequests(popped_);
  for (const Request* r : popped_) {
    if (r->type == RequestType::kJoin) joined_ = true;
  }
  current_op_.Set("negotiation");
  if (config_.rank == 0) {
    ApplyTimelineRequest();
    timeline_.MarkCycle();
  }
  cycle_.begun = true;
  cycle_.now = now;
  // One clock read per cycle (a few percent of a small call's engine time in a VM).
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  cycle_.shutdown = shutdown_requested_;
  BeginNegotiation(popped_, now_ms);
}

bool Engine::EndCycle() {
  cycle_.begun = false;
  current_op_.Set("negotiation");
  const std::vector<Response>* hits = nullptr;
  ResponseList responses = EndNegotiation(popped_, &hits);
  popped_.clear();  // the cycle is about to take their entries
  last_cycle_quiet_ = responses.quiet;
  KOLO_TRACE_POINT("negotiated");
  if (hits != nullptr) {
    for (const Response& response : *hits) Perform(response);
  }
  for (const Response& response : responses.responses) Perform(response);
  KOLO_TRACE_POINT("performed");
  Tune(cycle_.now);
  timeline_.Flush();
  sink_->EndOfCycle();
  if (!responses.abort_message.empty()) throw StallAbort(responses.abort_message, responses.abort_rank);
  return !responses.shutdown;
}

std::string Engine::CurrentOp::Describe() const {
  if (name.empty()) return what;
  return quoted ? std::string(what) + " of '" + name + "'" : std::string(what) + " " + name;
}

void Engine::Fail(std::vector<EntryPtr> entries, const Status& status) {
  for (EntryPtr& e : entries) {
    if (e->owner) sink_->Finish(std::move(e), status);
  }
}

Status Engine::DescribeFailure(const TransportError& error) {
  int failed = error.peer_rank();
  std::string reason;
  KeyValueStore* store = connection_.store.get();
  if (store != nullptr) {
    auto wait = std::chrono::milliseconds(std::min<int64_t>(3000, config_.timeout_ms));
    const std::string rank_key = config_.failure_key_prefix + kFailureRankKey;
    try {
      if (auto rank = store->Get(rank_key, wait)) {
        failed = std::stoi(std::string(rank->begin(), rank->end()));
        if (auto why = store->Get(config_.failure_key_prefix + kFailureReasonKey,
                                  std::chrono::milliseconds(500))) {
          reason.assign(why->begin(), why->end());
        }
      } else if (failed >= 0 && config_.rank == 0) {
        // Only the coordinator talks to each rank directly, so only it knows who vanished.
        std::string r = std::to_string(failed);
        store->Set(rank_key, std::vector<char>(r.begin(), r.end()));
      }
    } catch (const std::exception&) {
      // The store may be gone too; report what the transport saw.
    }
  }
  std::string msg = "Communication failure on rank " + std::to_string(config_.rank) +
                    " during " + current_op_.Describe() + ": " + error.what() + ". ";
  if (failed >= 0) {
    msg += "Rank " + std::to_string(failed) + " failed first" +
           (reason.empty() ? "" : " (" + reason + ")") + ". ";
  }
  msg += "Kolo stopped this job's engine on every rank; restart all ranks (resuming from your "
         "last checkpoint).";
  if (error.timed_out() && failed < 0) {
    msg += " A peer stopped responding for longer than KOLO_TIMEOUT_SECONDS (" +
           std::to_string(config_.timeout_ms / 1000) + " s).";
    return Status::Error(StatusCode::kTimeout, msg, failed);
  }
  return Status::Error(StatusCode::kCommunication, msg, failed);
}

std::vector<EntryPtr> Engine::TakeEntries(const Response& response) {
  std::vector<EntryPtr> entries;
  queue_.TakeEach(response.names, entries);
  for (size_t i = 0; i < response.names.size(); ++i) {
    EntryPtr& e = entries[i];
    if (!e) {
      // A joined rank still takes part: it contributes zeros of the agreed size.
      e = std::make_unique<TensorEntry>();
      e->request.name = response.names[i];
      e->request.dtype = response.dtype;
      int64_t n = i < response.sizes.size() ? response.sizes[i] : 0;
      e->request.shape = {n};
      e->result.AssignZeros(static_cast<size_t>(n) * DataTypeSize(response.dtype));
      e->input = e->result.data();
      e->output = e->result.data();
    }
  }
  return entries;
}

void Engine::Perform(const Response& response) {
  const char* kind = RequestTypeName(response.type);
  if (response.names.empty()) {
    current_op_.Set(kind);
  } else {
    current_op_.Set(kind, response.names[0], /*quoted=*/true);
  }
  if (response.type == RequestType::kError) {
    Fail(TakeEntries(response),
         Status::Error(response.error_code, response.error_message));
    return;
  }
  if (response.type == RequestType::kJoin) {
    joined_ = false;
    EntryPtr e = queue_.Take(kJoinName);
    if (e) {
      e->last_joined_rank = response.last_joined_rank;
      sink_->Finish(std::move(e), Status::Ok());
    }
    return;
  }
  if (response.type == RequestType::kAddProcessSet ||
      response.type == RequestType::kRemoveProcessSet) {
    ChangeProcessSets(response);
    return;
  }
  Group& g = groups_.at(response.process_set);
  if (g.rank < 0) return;  // not a member of this process set
  std::vector<EntryPtr> entries = TakeEntries(response);
  try {
    for (const EntryPtr& e : entries) timeline_.Start(e->request.name, response.type);
    if (response.type == RequestType::kAllreduce) {
      ExecuteAllreduce(g, entries, response);
    } else {
      Phase(entries, TransportActivity(response.type));
      switch (response.type) {
        case RequestType::kAllgather: ExecuteAllgather(g, *entries[0], response); break;
        case RequestType::kBroadcast: ExecuteBroadcast(g, *entries[0], response); break;
        case RequestType::kAlltoall: ExecuteAlltoall(g, *entries[0], response); break;
        case RequestType::kReducescatter: ExecuteReducescatter(g, *entries[0], response); break;
        case RequestType::kBarrier: g.transport->Barrier(); break;
        default: break;
      }
      PhaseEnd(entries);
    }
  } catch (...) {
    // The transport failed mid-collective: these entries left the queue, so hand them to Run,
    // which fails them with the generation's final status (they must never be left unsettled).
    for (EntryPtr& e : entries) {
      if (e && e->owner) stranded_.push_back(std::move(e));
    }
    throw;
  }
  for (EntryPtr& e : entries) {
    timeline_.End(e->request.name, response.dtype, e->request.shape);
    if (e->owner) sink_->Finish(std::move(e), Status::Ok());
  }
}

void Engine::Phase(const std::vector<EntryPtr>& entries, const char* activity) {
  if (!timeline_.active()) return;
  for (const EntryPtr& e : entries) timeline_.ActivityStart(e->request.name, activity);
}

void Engine::PhaseEnd(const std::vector<EntryPtr>& entries) {
  if (!timeline_.active()) return;
  for (const EntryPtr& e : entries) timeline_.ActivityEnd(e->request.name);
}

}  // namespace kolo

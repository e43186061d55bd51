// Negotiation, once per cycle. Steady state (every request's name already cached with the same
// parameters) costs one allreduce of a vote vector: a header byte for "someone needs the full
// path" and "someone sent something", rank 0's autotuned parameters, then one byte per cache
// entry (CacheVote, reduced by minimum). Anything else (new names, changed parameters, joins,
// shutdown, set changes) also goes through the coordinator's gather of full requests, which keeps
// its mismatch checks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unordered_map>

#include "engine/engine.h"

namespace kolo {
namespace {

constexpr size_t kNeedFullByte = 0;  // 0 when some rank needs the coordinator this cycle
constexpr size_t kQuietByte = 1;     // 0 when some rank sent a request this cycle
// 0 while rank 0 writes a timeline: every name is then negotiated in full, so the timeline
// shows each negotiation as Horovod's does, and nothing new is cached.
constexpr size_t kCacheOnByte = 2;
// Rank 0's autotuned parameters (autotune.h); every other rank writes 0xFF there.
constexpr size_t kTuningBytes = 3;
constexpr size_t kVoteHeader = kTuningBytes + kTuningVoteBytes;
// A cached request still unmatched after this long is sent in full, so the coordinator's stall
// inspector sees it and names the ranks that never submitted it.
constexpr int64_t kHitPatienceMs = 1000;
// While names wait at the coordinator, it runs at least this often so its stall inspector can
// warn (and end the job) even when no rank sends anything new.
constexpr int64_t kStallPollMs = 100;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<char> Engine::CastVotes(const std::vector<const Request*>& requests,
                                    std::vector<Request>& uncached, int64_t now_ms) {
  std::vector<char> votes(kVoteHeader + cache_.size(), static_cast<char>(CacheVote::kAbsent));
  if (pending_since_.size() < cache_.size()) pending_since_.resize(cache_.size(), kNotPending);
  auto vote = [&](size_t index, CacheVote v) { votes[kVoteHeader + index] = static_cast<char>(v); };
  std::vector<size_t> stale;
  // A request the cache does not take (a process set's, a join) is negotiated in full and
  // leaves any entry under its name alone.
  std::vector<std::optional<size_t>> hits(requests.size());
  std::vector<char> changed(requests.size(), 0);
  // Members of a group hit only together: the coordinator emits a group once all its members
  // reached it, so one member that misses (new, changed, or left out of a full cache) sends the
  // whole group there, and this rank votes to evict the others' entries, which sends theirs
  // there on every rank too. A group's members always arrive in one cycle (queued at once).
  std::unordered_map<std::string, int32_t> group_hits;
  for (size_t k = 0; k < requests.size(); ++k) {
    const Request& r = *requests[k];
    if (!ResponseCache::Cacheable(r)) continue;
    bool c = false;
    hits[k] = cache_.Lookup(r, &c);
    changed[k] = c ? 1 : 0;
    if (hits[k] && !r.group.empty()) ++group_hits[r.group];
  }
  for (size_t k = 0; k < requests.size(); ++k) {
    const Request& r = *requests[k];
    const bool whole = r.group.empty() || group_hits[r.group] == r.group_size;
    if (hits[k] && whole) {
      if (pending_since_[*hits[k]] == kNotPending) {
        pending_since_[*hits[k]] = now_ms;
        ++pending_count_;
      }
      continue;
    }
    if (hits[k] || changed[k] != 0) stale.push_back(*cache_.IndexOf(r.name));
    uncached.push_back(r);
  }
  const int64_t patience =
      config_.stall.check_ms > 0 ? std::min(kHitPatienceMs, config_.stall.check_ms / 2) : kHitPatienceMs;
  for (size_t i = 0, seen = 0; seen < pending_count_ && i < pending_since_.size(); ++i) {
    const int64_t since = pending_since_[i];
    if (since == kNotPending) continue;
    ++seen;
    vote(i, now_ms - since > patience ? CacheVote::kEvict : CacheVote::kReady);
  }
  if (joined_) {
    // A joined rank contributes zeros to allreduces and must not hold them up; broadcasts go to
    // the coordinator, which reports that Join does not support them.
    for (size_t i = 0; i < cache_.size(); ++i) {
      if (!cache_.Live(i) || pending_since_[i] != kNotPending) continue;
      vote(i, cache_.At(i).type == RequestType::kAllreduce ? CacheVote::kReady : CacheVote::kEvict);
    }
  }
  for (size_t index : stale) vote(index, CacheVote::kEvict);
  const bool stall_poll = coordinator_ && coordinator_->HasPending() &&
                          now_ms - last_full_negotiation_ms_ >= kStallPollMs;
  const bool need_full = !uncached.empty() || joined_ || shutdown_requested_ || stall_poll;
  votes[kNeedFullByte] = need_full ? 0 : 1;
  votes[kQuietByte] = requests.empty() ? 1 : 0;
  votes[kCacheOnByte] = timeline_.active() ? 0 : 1;
  const TuningVote tuning = OwnTuningVote();
  std::copy(tuning.begin(), tuning.end(), votes.begin() + kTuningBytes);
  return votes;
}

ResponseList Engine::Negotiate(const std::vector<const Request*>& mine, bool shutdown,
                               const std::vector<Response>** hits) {
  *hits = nullptr;
  if (config_.response_cache_capacity == 0) {
    RequestList all;
    all.requests.reserve(mine.size());
    for (const Request* r : mine) all.requests.push_back(*r);
    all.shutdown = shutdown;
    return NegotiateFully(std::move(all));
  }
  const int64_t now_ms = NowMs();
  std::vector<Request> uncached;
  std::vector<char> votes = CastVotes(mine, uncached, now_ms);
  connection_.transport->Allreduce(votes.data(), static_cast<int64_t>(votes.size()),
                                   DataType::kUint8, ReduceOp::kMin);
  const bool cache_on = votes[kCacheOnByte] != 0;
  AdoptTuning(votes.data() + kTuningBytes);
  // Clears entry i's pending mark; true when it had one.
  auto settle = [&](size_t i) {
    if (i >= pending_since_.size() || pending_since_[i] == kNotPending) return false;
    pending_since_[i] = kNotPending;
    --pending_count_;
    return true;
  };
  std::vector<size_t> ready;
  bool evicted = false;
  for (size_t i = 0; i < cache_.size(); ++i) {
    if (!cache_.Live(i)) continue;
    const auto v = cache_on ? static_cast<CacheVote>(votes[kVoteHeader + i]) : CacheVote::kEvict;
    if (v == CacheVote::kReady) {
      ready.push_back(i);
      settle(i);
    } else if (v == CacheVote::kEvict) {
      evicted = true;
      if (settle(i)) {
        // Our request goes to the coordinator instead, in this very cycle.
        if (auto r = queue_.Find(cache_.NameAt(i))) {
          r->rank = config_.rank;
          uncached.push_back(*r);
        }
      }
      cache_.Evict(i);
    }
  }
  ResponseList out;
  *hits = FuseHits(std::move(ready));
  out.quiet = votes[kQuietByte] != 0;
  if (votes[kNeedFullByte] != 0 && !evicted) return out;

  RequestList full;
  full.requests = std::move(uncached);
  full.shutdown = shutdown;
  ResponseList negotiated = NegotiateFully(std::move(full));
  for (const Response& r : negotiated.responses) {
    if (!cache_on || !ResponseCache::Cacheable(r)) continue;
    cache_.Insert(r, [this](const std::string& name) {
      std::optional<Request> req = queue_.Find(name);
      // Only this rank's own cacheable requests can match later ones.
      if (req && !ResponseCache::Cacheable(*req)) req.reset();
      return req;
    });
  }
  for (Response& r : negotiated.responses) out.responses.push_back(std::move(r));
  out.shutdown = negotiated.shutdown;
  out.abort_message = std::move(negotiated.abort_message);
  out.abort_rank = negotiated.abort_rank;
  return out;
}

// The fused responses of the cache entries `ready` (in index order), as the coordinator would
// fuse them; the same entries as last time (and no cache change since) reuse last time's. They
// live in last_hits_, so they stay valid until the next call.
const std::vector<Response>* Engine::FuseHits(std::vector<size_t> ready) {
  if (ready.empty()) return nullptr;
  FusedHits& last = last_hits_;
  if (ready != last.indices || cache_.generation() != last.generation ||
      config_.fusion_threshold_bytes != last.threshold) {
    std::vector<Response> responses;
    responses.reserve(ready.size());
    for (size_t i : ready) responses.push_back(cache_.At(i));
    last.responses = Coordinator::FuseResponses(std::move(responses), config_.fusion_threshold_bytes);
    last.indices = std::move(ready);
    last.generation = cache_.generation();
    last.threshold = config_.fusion_threshold_bytes;
  }
  return &last.responses;
}

ResponseList Engine::NegotiateFully(RequestList mine) {
  last_full_negotiation_ms_ = NowMs();
  Transport& t = *connection_.transport;
  std::vector<std::vector<char>> all = t.GatherToRoot(Serialize(mine));
  std::vector<char> out;
  if (config_.rank == 0) {
    std::vector<RequestList> lists;
    for (const auto& bytes : all) lists.push_back(ParseRequestList(bytes));
    // The coordinator fuses with the parameters every rank adopts from this list below.
    const TuningVote tuning = OwnTuningVote();
    AdoptTuning(tuning.data());
    ResponseList computed = coordinator_->Compute(lists, NowMs());
    if (autotuner_) computed.tuning.assign(tuning.begin(), tuning.end());
    out = Serialize(computed);
    std::string warning = coordinator_->TakeWarning();
    if (!warning.empty()) std::fprintf(stderr, "Kolo WARNING: %s\n", warning.c_str());
  }
  ResponseList list = ParseResponseList(t.BroadcastFromRoot(std::move(out)));
  if (list.tuning.size() == kTuningVoteBytes) AdoptTuning(list.tuning.data());
  return list;
}

}  // namespace kolo

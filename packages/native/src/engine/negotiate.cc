// Negotiation, once per cycle. Steady state (every request's name already cached with the same
// parameters) costs one allreduce of a vote vector: a header byte for "someone needs the full
// path" and "someone sent something", rank 0's autotuned parameters, then one byte per cache
// entry (CacheVote, reduced by minimum). Anything else (new names, changed parameters, joins,
// shutdown, set changes) also goes through the coordinator's gather of full requests, which keeps
// its mismatch checks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "engine/engine.h"
#include "engine/trace_points.h"

namespace kolo {
namespace {

constexpr size_t kNeedFullByte = 0;  // 0 when some rank needs the coordinator this cycle
constexpr size_t kQuietByte = 1;     // 0 when some rank sent a request this cycle
// 0 while rank 0 writes a timeline: every name is then negotiated in full, so the timeline
// shows each negotiation as Horovod's does, and nothing new is cached.
constexpr size_t kCacheOnByte = 2;
// 1 when this rank's published bytes hold the data of every cached allreduce it votes ready
// (Engine::Speculate); those of the entries every rank votes ready then complete from them.
constexpr size_t kSpeculatedByte = 3;
// Rank 0's autotuned parameters (autotune.h); every other rank writes 0xFF there.
constexpr size_t kTuningBytes = 4;
constexpr size_t kVoteHeader = kTuningBytes + kTuningVoteBytes;
// A cached request still unmatched after this long is sent in full, so the coordinator's stall
// inspector sees it and names the ranks that never submitted it.
constexpr int64_t kHitPatienceMs = 1000;
// While names wait at the coordinator, it runs at least this often so its stall inspector can
// warn (and end the job) even when no rank sends anything new.
constexpr int64_t kStallPollMs = 100;

// Speculated data starts on a cache line after the votes, and each entry's on the next one.
size_t AlignUp(size_t n) { return (n + 63) & ~size_t{63}; }

// Cache entries whose data can travel with the votes: allreduces (but float16, reduced in
// float32, and prescaled ones); broadcasts, whose root alone publishes; and allgathers, each
// rank publishing its own rows (the entry's row size comes from this rank's cached request).
bool Speculable(const ResponseCache& cache, size_t i, int ranks) {
  const Response& r = cache.At(i);
  if (r.process_set != 0) return false;
  switch (r.type) {
    case RequestType::kAllreduce:
      return r.dtype != DataType::kFloat16 && r.prescale == 1.0 && r.sizes.size() == 1;
    case RequestType::kBroadcast:
      return r.sizes.size() == 1;
    case RequestType::kAllgather:
      return r.sizes.size() == static_cast<size_t>(ranks) && cache.MineAt(i) != nullptr;
    default:
      return false;
  }
}

// The bytes entry i takes in a rank's published data. The same on every rank: an allgather's
// holds the most rows any rank sends, whatever this rank sends.
size_t EntryBytes(const ResponseCache& cache, size_t i) {
  const Response& r = cache.At(i);
  const size_t esize = DataTypeSize(r.dtype);
  if (r.type != RequestType::kAllgather) return static_cast<size_t>(r.sizes[0]) * esize;
  const Request* mine = cache.MineAt(i);
  if (mine == nullptr) return 0;
  const int64_t most = r.sizes.empty() ? 0 : *std::max_element(r.sizes.begin(), r.sizes.end());
  return static_cast<size_t>(most * RowElements(mine->shape)) * esize;
}

// Calls fn(i, at) for each cache entry that `votes` (one rank's vote vector) marks ready, in index
// order, with where that entry's data starts in the rank's published bytes, the first at `at`:
// the one layout Speculate writes and every rank reads. Stops (returning false) when fn does.
template <typename Fn>
bool ForEachReady(const ResponseCache& cache, const char* votes, size_t at, Fn fn) {
  for (size_t i = 0; i < cache.size(); ++i) {
    if (static_cast<CacheVote>(votes[kVoteHeader + i]) != CacheVote::kReady) continue;
    if (!fn(i, at)) return false;
    at = AlignUp(at + EntryBytes(cache, i));
  }
  return true;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void Engine::CastVotes(const std::vector<const Request*>& requests, std::vector<Request>& uncached,
                       int64_t now_ms) {
  std::vector<char>& votes = votes_;
  votes.assign(kVoteHeader + cache_.size(), static_cast<char>(CacheVote::kAbsent));
  if (pending_since_.size() < cache_.size()) pending_since_.resize(cache_.size(), kNotPending);
  auto vote = [&](size_t index, CacheVote v) { votes[kVoteHeader + index] = static_cast<char>(v); };
  std::vector<size_t> stale;
  // A request the cache does not take (a process set's, a join) is negotiated in full and
  // leaves any entry under its name alone.
  std::vector<std::optional<size_t>>& hits = vote_hits_;
  hits.assign(requests.size(), std::nullopt);
  std::vector<char>& changed = vote_changed_;
  changed.assign(requests.size(), 0);
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
  votes[kSpeculatedByte] = 0;
  const TuningVote tuning = OwnTuningVote();
  std::copy(tuning.begin(), tuning.end(), votes.begin() + kTuningBytes);
}

bool Engine::VotesTravelInPlace() const {
  return config_.response_cache_capacity != 0 && config_.size >= 2 &&
         connection_.transport->InPlaceBytes() > AlignUp(kVoteHeader + cache_.size());
}

void Engine::BeginNegotiation(const std::vector<const Request*>& mine, int64_t now_ms) {
  cycle_.uncached.clear();
  if (config_.response_cache_capacity == 0) return;  // EndNegotiation negotiates in full
  CastVotes(mine, cycle_.uncached, now_ms);
  PublishVotes(votes_);
}

ResponseList Engine::EndNegotiation(const std::vector<const Request*>& mine,
                                    const std::vector<Response>** hits) {
  *hits = nullptr;
  const bool shutdown = cycle_.shutdown;
  if (config_.response_cache_capacity == 0) {
    RequestList all;
    all.requests.reserve(mine.size());
    for (const Request* r : mine) all.requests.push_back(*r);
    all.shutdown = shutdown;
    return NegotiateFully(std::move(all));
  }
  std::vector<Request>& uncached = cycle_.uncached;
  std::vector<char>& votes = votes_;
  const char* const* published = CollectVotes(votes);
  const bool cache_on = votes[kCacheOnByte] != 0;
  AdoptTuning(votes.data() + kTuningBytes);
  // Clears entry i's pending mark; true when it had one.
  auto settle = [&](size_t i) {
    if (i >= pending_since_.size() || pending_since_[i] == kNotPending) return false;
    pending_since_[i] = kNotPending;
    --pending_count_;
    return true;
  };
  std::vector<size_t>& ready = ready_;
  ready.clear();
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
  if (published != nullptr && !ready.empty()) {
    PerformSpeculated(ready, published);
  } else {
    *hits = FuseHits(ready);
  }
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

void Engine::PublishVotes(std::vector<char>& votes) {
  if (!VotesTravelInPlace()) return;  // CollectVotes allreduces them
  Transport& t = *connection_.transport;
  const size_t start = AlignUp(votes.size());
  char* box = t.InPlaceOutbox();
  size_t& published = cycle_.speculated_end;  // bytes of speculated data after `start`
  published = 0;
  votes[kSpeculatedByte] = Speculate(votes, box + start, t.InPlaceBytes() - start, published) ? 1 : 0;
  std::memcpy(box, votes.data(), votes.size());
  KOLO_TRACE_POINT("votes-out");
  t.PublishInPlace();
}

const char* const* Engine::CollectVotes(std::vector<char>& votes) {
  Transport& t = *connection_.transport;
  // The cache does not change between the halves: the same answer as PublishVotes's.
  if (!VotesTravelInPlace()) {
    t.Allreduce(votes.data(), static_cast<int64_t>(votes.size()), DataType::kUint8, ReduceOp::kMin);
    return nullptr;
  }
  const size_t start = AlignUp(votes.size());
  const size_t published = cycle_.speculated_end;
  const char* const* all = t.ExchangeInPlace("negotiation");
  KOLO_TRACE_POINT("votes-in");
  if (votes[kSpeculatedByte] != 0) {
    // The peers' speculated bytes are read next, after the votes are reduced: ask for them now
    // (this rank's own layout is theirs where they voted alike; 5–6% of a 16–32 KiB allreduce).
    for (int r = 0; r < config_.size; ++r) {
      if (r != config_.rank) PrefetchBytes(all[r] + start, published);
    }
  }
  // The size is read once: writes through a char pointer could alias the vector's own fields,
  // which kept the compiler from vectorizing a loop that re-read it every byte.
  auto* min = reinterpret_cast<uint8_t*>(votes.data());
  const size_t bytes = votes.size();
  for (int r = 0; r < config_.size; ++r) {
    const auto* theirs = reinterpret_cast<const uint8_t*>(all[r]);
    for (size_t b = 0; b < bytes; ++b) min[b] = std::min(min[b], theirs[b]);
  }
  if (votes[kSpeculatedByte] == 0) return nullptr;
  // Where each rank put each entry it voted ready: in index order, as Speculate wrote them
  // (the cache is the same on every rank, so every rank computes the same layout).
  const size_t n = cache_.size();
  speculated_at_.resize(static_cast<size_t>(config_.size) * n);
  for (int r = 0; r < config_.size; ++r) {
    ForEachReady(cache_, all[r], start, [&](size_t i, size_t at) {
      speculated_at_[static_cast<size_t>(r) * n + i] = static_cast<uint32_t>(at);
      return true;
    });
  }
  return all;
}

// Writes the data of every cached allreduce this rank votes ready into `out`, in index order,
// each on its own cache line, of every such broadcast this rank is the root of (the others
// leave its place empty), and its own rows of every such allgather. False (and nothing to rely
// on) when one does not qualify or they do not fit in `room`: the ready entries then run as
// usual after the vote.
bool Engine::Speculate(const std::vector<char>& votes, char* out, size_t room, size_t& end) {
  if (joined_ || timeline_.active()) return false;
  // First whether they all qualify and fit, from the cache alone: a step of many tensors (more
  // than fits) then costs a walk over the votes, not the copies of the first few.
  // (Their names too, to look their entries up under one lock.)
  speculated_names_.clear();
  end = 0;
  const bool fits = ForEachReady(cache_, votes.data(), 0, [&](size_t i, size_t at) {
    speculated_names_.push_back(cache_.NameAt(i));
    end = at + EntryBytes(cache_, i);
    return Speculable(cache_, i, config_.size) && end <= room;
  });
  if (!fits) return false;
  queue_.PeekEach(speculated_names_, speculated_peeks_);
  size_t k = 0;
  return ForEachReady(cache_, votes.data(), 0, [&](size_t i, size_t at) {
    const Response& r = cache_.At(i);
    const TensorEntry* e = speculated_peeks_[k++];
    if (e == nullptr) return false;
    if (r.type == RequestType::kBroadcast && r.root != config_.rank) return true;
    // All of an allreduce or a broadcast's bytes; an allgather's own rows.
    const size_t bytes =
        r.type == RequestType::kAllgather
            ? static_cast<size_t>(NumElements(e->request.shape)) * DataTypeSize(r.dtype)
            : EntryBytes(cache_, i);
    size_t copied = 0;
    auto copy = [&](const void* in, size_t n) {
      if (copied + n > bytes) return false;
      CopyBytes(out + at + copied, in, n);
      copied += n;
      return true;
    };
    if (e->parts.empty()) {
      if (!copy(e->input, static_cast<size_t>(NumElements(e->request.shape)) * DataTypeSize(r.dtype))) return false;
    } else {
      for (const BufferSegment& s : e->parts) {
        if (!copy(s.in, s.bytes)) return false;
      }
    }
    return copied == bytes;
  });
}

// The fused responses of the cache entries `ready` (in index order), as the coordinator would
// fuse them. They live in fused_hits_, so they stay valid until the next call.
const std::vector<Response>* Engine::FuseHits(const std::vector<size_t>& ready) {
  if (ready.empty()) return nullptr;
  const uint64_t generation = cache_.generation();
  const int64_t threshold = config_.fusion_threshold_bytes;
  FusedHits* oldest = &fused_hits_[0];
  for (FusedHits& set : fused_hits_) {
    if (set.last_used != 0 && set.generation == generation && set.threshold == threshold &&
        set.indices == ready) {
      set.last_used = ++fused_hits_clock_;
      return &set.responses;
    }
    if (set.last_used < oldest->last_used) oldest = &set;
  }
  std::vector<Response> responses;
  responses.reserve(ready.size());
  for (size_t i : ready) responses.push_back(cache_.At(i));
  oldest->responses = Coordinator::FuseResponses(std::move(responses), threshold);
  oldest->indices = ready;
  oldest->generation = generation;
  oldest->threshold = threshold;
  oldest->last_used = ++fused_hits_clock_;
  fusions_of_hits_.fetch_add(1, std::memory_order_relaxed);
  return &oldest->responses;
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

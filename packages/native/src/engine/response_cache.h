// Horovod's response cache: once a tensor name has been negotiated, every rank holds its
// response under the same index, so later requests for it are agreed by a vote of one byte per
// entry (one small allreduce per cycle) instead of a gather of full requests at the coordinator.
// Every rank inserts and evicts in the same order, so indices agree everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/message.h"

namespace kolo {

// One rank's vote on a cache entry; the cycle's result is the minimum over ranks.
enum class CacheVote : uint8_t {
  kEvict = 0,  // this rank submitted the name with other parameters (or gave up waiting)
  kAbsent = 1,
  kReady = 2,  // this rank submitted the name with the cached parameters
};

class ResponseCache {
 public:
  explicit ResponseCache(size_t capacity = 1024) : capacity_(capacity) {}

  // Responses that can be cached: allreduce, broadcast and allgather over every rank (group
  // members too: Engine::CastVotes lets a group hit only as a whole). An allgather's response
  // holds every rank's first dimension; a rank hits only with its own shape unchanged, so an
  // entry is used only while every rank's is.
  static bool Cacheable(const Request& request);
  static bool Cacheable(const Response& response);

  // The entry for `request`'s name when its parameters match the cached ones (this rank's own
  // last request for that name); `*stale` is set when the name is cached with other parameters.
  // Remembers a hit in the request (Request::cache_generation): the caller must not change a
  // request's parameters once looked up.
  std::optional<size_t> Lookup(const Request& request, bool* stale) const;
  std::optional<size_t> IndexOf(const std::string& name) const;
  // Caches every name of a (possibly fused) response (a name that does not fit is left out). `mine` finds this rank's own request for
  // a name (absent on a rank that has joined). Identical calls on every rank.
  template <typename Find>
  void Insert(const Response& response, Find mine) {
    // A response of one name is cached as it is: an allgather's sizes are every rank's rows,
    // not one size per name.
    if (response.names.size() == 1) {
      Insert(response, mine(response.names[0]));
      return;
    }
    // One copy of the response's fields for all its names (not one per name, which would copy
    // every name of a fused response each time); each entry gets its own name and size.
    Response single = response;
    for (size_t i = 0; i < response.names.size(); ++i) {
      single.names = {response.names[i]};
      single.sizes = {response.sizes[i]};
      Insert(single, mine(response.names[i]));
    }
  }
  void Evict(size_t index);
  // The single-name response of entry `index`.
  const Response& At(size_t index) const { return entries_[index].response; }
  // This rank's own request for entry `index` as it was cached, or null.
  const Request* MineAt(size_t index) const {
    const std::optional<Request>& mine = entries_[index].mine;
    return mine ? &*mine : nullptr;
  }
  const std::string& NameAt(size_t index) const { return entries_[index].response.names[0]; }
  bool Live(size_t index) const { return entries_[index].live; }
  size_t size() const { return entries_.size(); }
  // Changes whenever an entry is inserted or evicted, so a caller can tell that indices it
  // remembered still name the same responses.
  uint64_t generation() const { return generation_; }

 private:
  struct Entry {
    Response response;
    std::optional<Request> mine;
    bool live = true;
  };
  // Caches `single`, a response of one name.
  void Insert(const Response& single, std::optional<Request> mine);

  size_t capacity_;
  uint64_t generation_ = 1;  // never 0, which a request's memo holds when it has none
  std::vector<Entry> entries_;  // evicted entries stay as tombstones so indices never move
  std::unordered_map<std::string, size_t> by_name_;
  // Tombstones a later insert reuses, lowest index first: every rank evicts and inserts in the
  // same order, so every rank reuses the same index, and the vote vector stays at most
  // `capacity_` entries long however many names come and go.
  std::set<size_t> free_;
};

}  // namespace kolo

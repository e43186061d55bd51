#include "engine/response_cache.h"

namespace kolo {
namespace {

bool SameParameters(const Request& a, const Request& b) {
  return a.type == b.type && a.dtype == b.dtype && a.shape == b.shape &&
         a.parts == b.parts &&
         a.reduce_op == b.reduce_op && a.root == b.root && a.prescale == b.prescale &&
         a.postscale == b.postscale && a.process_set == b.process_set && a.group == b.group;
}

}  // namespace

namespace {
bool CacheableType(RequestType t) {
  return t == RequestType::kAllreduce || t == RequestType::kBroadcast || t == RequestType::kAllgather;
}
}  // namespace

bool ResponseCache::Cacheable(const Request& r) { return CacheableType(r.type) && r.process_set == 0; }

bool ResponseCache::Cacheable(const Response& r) { return CacheableType(r.type) && r.process_set == 0; }

std::optional<size_t> ResponseCache::Lookup(const Request& request, bool* stale) const {
  *stale = false;
  if (request.cache_generation == generation_) return request.cache_index;
  auto it = by_name_.find(request.name);
  if (it == by_name_.end()) return std::nullopt;
  const Entry& e = entries_[it->second];
  if (e.mine && SameParameters(*e.mine, request)) {
    request.cache_generation = generation_;
    request.cache_index = it->second;
    return it->second;
  }
  *stale = true;
  return std::nullopt;
}

std::optional<size_t> ResponseCache::IndexOf(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

void ResponseCache::Insert(const Response& single, std::optional<Request> mine) {
  const std::string& name = single.names[0];
  if (by_name_.count(name) != 0) return;
  if (free_.empty() && entries_.size() >= capacity_) return;
  Entry e;
  e.response = single;
  e.mine = std::move(mine);
  size_t index = entries_.size();
  if (!free_.empty()) {
    index = *free_.begin();
    free_.erase(free_.begin());
    entries_[index] = std::move(e);
  } else {
    entries_.push_back(std::move(e));
  }
  by_name_.emplace(name, index);
  ++generation_;
}

void ResponseCache::Evict(size_t index) {
  Entry& e = entries_[index];
  if (!e.live) return;
  e.live = false;
  by_name_.erase(e.response.names[0]);
  free_.insert(index);
  ++generation_;
}

}  // namespace kolo

#include <gtest/gtest.h>

#include "engine/response_cache.h"

namespace kolo {
namespace {

Request Reduce(const std::string& name, std::vector<int64_t> shape) {
  Request r;
  r.name = name;
  r.shape = std::move(shape);
  return r;
}

Response Fused(std::vector<std::string> names, std::vector<int64_t> sizes) {
  Response r;
  r.names = std::move(names);
  r.sizes = std::move(sizes);
  return r;
}

TEST(ResponseCache, SplitsAFusedResponseAndMatchesOnlyIdenticalRequests) {
  ResponseCache cache;
  cache.Insert(Fused({"a", "b"}, {4, 6}), [](const std::string& name) -> std::optional<Request> {
    return Reduce(name, {name == "a" ? 4 : 6});
  });
  ASSERT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.At(1).names, std::vector<std::string>{"b"});
  EXPECT_EQ(cache.At(1).sizes, std::vector<int64_t>{6});
  bool stale = true;
  EXPECT_EQ(cache.Lookup(Reduce("a", {4}), &stale), std::optional<size_t>(0));
  EXPECT_FALSE(stale);
  EXPECT_EQ(cache.Lookup(Reduce("a", {2, 2}), &stale), std::nullopt);
  EXPECT_TRUE(stale);
  EXPECT_EQ(cache.Lookup(Reduce("c", {4}), &stale), std::nullopt);
  EXPECT_FALSE(stale);
}

TEST(ResponseCache, EvictedIndicesAreReusedLowestFirstAndCapacityBoundsTheVote) {
  ResponseCache cache(3);
  auto mine = [](const std::string& name) -> std::optional<Request> { return Reduce(name, {1}); };
  cache.Insert(Fused({"a", "b", "c"}, {1, 1, 1}), mine);
  cache.Evict(2);
  cache.Evict(0);
  EXPECT_FALSE(cache.Live(0));
  EXPECT_TRUE(cache.Live(1));
  bool stale = false;
  EXPECT_EQ(cache.Lookup(Reduce("a", {1}), &stale), std::nullopt);
  // A full cache with two tombstones: "d" takes index 0, "a" comes back at index 2, "e" does
  // not fit, and the vote vector never grows past the capacity.
  cache.Insert(Fused({"d", "a", "e"}, {1, 1, 1}), mine);
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.IndexOf("d"), std::optional<size_t>(0));
  EXPECT_EQ(cache.IndexOf("b"), std::optional<size_t>(1));
  EXPECT_EQ(cache.Lookup(Reduce("a", {1}), &stale), std::optional<size_t>(2));
  EXPECT_EQ(cache.NameAt(0), "d");
  EXPECT_TRUE(cache.Live(0));
  EXPECT_EQ(cache.IndexOf("e"), std::nullopt);
}

// Group members are cacheable (Engine::CastVotes lets a group hit only as a whole).
// A request looked up again (a kept batch's, queued unchanged) hits from what it remembers only
// while no entry came or went: after its entry is evicted it misses, and once its name is
// cached again, elsewhere, it finds the new index.
TEST(ResponseCache, ARequestsRememberedHitLastsOnlyWhileNoEntryComesOrGoes) {
  ResponseCache cache;
  auto mine = [](const std::string& name) -> std::optional<Request> { return Reduce(name, {1}); };
  cache.Insert(Fused({"a", "b"}, {1, 1}), mine);
  const Request b = Reduce("b", {1});
  bool stale = true;
  EXPECT_EQ(cache.Lookup(b, &stale), std::optional<size_t>(1));
  EXPECT_EQ(cache.Lookup(b, &stale), std::optional<size_t>(1));
  EXPECT_FALSE(stale);
  cache.Evict(1);
  EXPECT_EQ(cache.Lookup(b, &stale), std::nullopt);
  EXPECT_FALSE(stale);
  cache.Evict(0);
  cache.Insert(Fused({"c", "b"}, {1, 1}), mine);  // "c" reuses index 0, "b" gets index 1
  cache.Evict(0);
  cache.Insert(Fused({"b2"}, {1}), mine);
  EXPECT_EQ(cache.Lookup(b, &stale), std::optional<size_t>(1));
  cache.Evict(1);
  cache.Insert(Fused({"d", "b"}, {1, 1}), mine);  // "d" takes index 1, "b" index 2
  EXPECT_EQ(cache.Lookup(b, &stale), std::optional<size_t>(2));
  EXPECT_EQ(cache.NameAt(2), "b");
}

TEST(ResponseCache, OnlyAllreduceBroadcastAndAllgatherOverEveryRankAreCached) {
  Request r = Reduce("a", {1});
  EXPECT_TRUE(ResponseCache::Cacheable(r));
  r.group = "g";
  EXPECT_TRUE(ResponseCache::Cacheable(r));
  r.group.clear();
  r.process_set = 1;
  EXPECT_FALSE(ResponseCache::Cacheable(r));
  r.process_set = 0;
  for (RequestType t : {RequestType::kBroadcast, RequestType::kAllgather}) {
    r.type = t;
    EXPECT_TRUE(ResponseCache::Cacheable(r)) << RequestTypeName(t);
    r.process_set = 1;
    EXPECT_FALSE(ResponseCache::Cacheable(r)) << RequestTypeName(t);
    r.process_set = 0;
  }
  for (RequestType t : {RequestType::kAlltoall, RequestType::kReducescatter, RequestType::kBarrier,
                        RequestType::kJoin}) {
    r.type = t;
    EXPECT_FALSE(ResponseCache::Cacheable(r)) << RequestTypeName(t);
  }
}

}  // namespace
}  // namespace kolo

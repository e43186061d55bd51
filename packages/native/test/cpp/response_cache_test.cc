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

TEST(ResponseCache, EvictedEntriesKeepTheirIndexAndTheNameCanReturn) {
  ResponseCache cache(3);
  auto mine = [](const std::string& name) -> std::optional<Request> { return Reduce(name, {1}); };
  cache.Insert(Fused({"a"}, {1}), mine);
  cache.Evict(0);
  EXPECT_FALSE(cache.Live(0));
  bool stale = false;
  EXPECT_EQ(cache.Lookup(Reduce("a", {1}), &stale), std::nullopt);
  cache.Insert(Fused({"a", "b", "c"}, {1, 1, 1}), mine);  // capacity 3 counts the tombstone
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.Lookup(Reduce("a", {1}), &stale), std::optional<size_t>(1));
  EXPECT_EQ(cache.IndexOf("c"), std::nullopt);
}

TEST(ResponseCache, OnlyAllreduceAndBroadcastOverEveryRankOutsideGroupsAreCached) {
  Request r = Reduce("a", {1});
  EXPECT_TRUE(ResponseCache::Cacheable(r));
  r.group = "g";
  EXPECT_FALSE(ResponseCache::Cacheable(r));
  r.group.clear();
  r.process_set = 1;
  EXPECT_FALSE(ResponseCache::Cacheable(r));
  r.process_set = 0;
  r.type = RequestType::kAllgather;
  EXPECT_FALSE(ResponseCache::Cacheable(r));
}

}  // namespace
}  // namespace kolo

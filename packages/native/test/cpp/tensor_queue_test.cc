#include <gtest/gtest.h>

#include <thread>

#include "engine/tensor_queue.h"

namespace kolo {
namespace {

EntryPtr Entry(const std::string& name, int64_t size = 4) {
  auto e = std::make_unique<TensorEntry>();
  e->request.name = name;
  e->request.shape = {size};
  return e;
}

std::vector<EntryPtr> Call(std::vector<std::string> names) {
  std::vector<EntryPtr> out;
  for (const std::string& n : names) out.push_back(Entry(n));
  return out;
}

std::vector<std::string> Names(const std::vector<const Request*>& requests) {
  std::vector<std::string> out;
  for (const Request* r : requests) out.push_back(r->name);
  return out;
}

TEST(TensorQueue, PopsRequestsInOrderAsViewsOfTheQueuedEntries) {
  TensorQueue q;
  ASSERT_TRUE(q.Add(Call({"a"})).ok());
  ASSERT_TRUE(q.Add(Call({"b", "c"})).ok());
  std::vector<const Request*> popped;
  q.PopRequests(popped);
  EXPECT_EQ(Names(popped), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(q.HasUnsent());
  EXPECT_EQ(q.InFlight(), 3u);
  // The views are the entries' own requests.
  EntryPtr b = q.Take("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(&b->request, popped[1]);
  q.PopRequests(popped);
  EXPECT_TRUE(popped.empty());
}

TEST(TensorQueue, ADuplicateNameFailsTheWholeCallAndLeavesTheTableAsItWas) {
  TensorQueue q;
  ASSERT_TRUE(q.Add(Call({"a"})).ok());
  // In flight already.
  Status s = q.Add(Call({"x", "a", "y"}));
  EXPECT_EQ(s.code, StatusCode::kDuplicateName);
  EXPECT_NE(s.message.find("(name: 'a')"), std::string::npos) << s.message;
  // Repeated within one call.
  s = q.Add(Call({"p", "q", "p"}));
  EXPECT_EQ(s.code, StatusCode::kDuplicateName);
  EXPECT_NE(s.message.find("(name: 'p')"), std::string::npos) << s.message;
  // Nothing of either failed call stayed: their names are free, and only "a" is unsent.
  EXPECT_EQ(q.InFlight(), 1u);
  EXPECT_EQ(q.Unsent(), 1u);
  EXPECT_TRUE(q.Add(Call({"x", "y", "p", "q"})).ok());
  std::vector<const Request*> popped;
  q.PopRequests(popped);
  EXPECT_EQ(Names(popped), (std::vector<std::string>{"a", "x", "y", "p", "q"}));
}

TEST(TensorQueue, TakingAnEntryNoCycleHasSeenAlsoDropsItsUnsentRequest) {
  TensorQueue q;
  ASSERT_TRUE(q.Add(Call({"a", "b", "c"})).ok());
  EntryPtr b = q.Take("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(q.Unsent(), 2u);
  std::vector<EntryPtr> taken;
  q.TakeEach(std::vector<std::string>{"c", "missing", "a"}, taken);
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_EQ(taken[0]->request.name, "c");
  EXPECT_EQ(taken[1], nullptr);
  EXPECT_EQ(taken[2]->request.name, "a");
  EXPECT_EQ(q.InFlight(), 0u);
  std::vector<const Request*> popped;
  q.PopRequests(popped);
  EXPECT_TRUE(popped.empty());  // no view of a taken (and soon freed) entry
  // The names can be queued again.
  EXPECT_TRUE(q.Add(Call({"a", "b", "c"})).ok());
}

// A turn's calls queued under one lock: each call whole or not at all, as Add, a call already
// refused (its status not ok on entry) left alone, and each outcome in its call's place.
TEST(TensorQueue, AddEachQueuesEveryCallItIsGivenAsAddWouldInOrder) {
  TensorQueue q;
  ASSERT_TRUE(q.Add(Call({"a"})).ok());
  std::vector<std::vector<EntryPtr>> calls;
  calls.push_back(Call({"x"}));
  calls.push_back(Call({"y", "a"}));  // "a" is in flight: the whole call fails
  calls.push_back(Call({"z"}));       // refused before (its status below)
  calls.push_back(Call({"y", "w"}));  // "y" is free again after the failed call
  calls.push_back(Call({"x"}));       // queued by the first call of this very turn
  std::vector<Status> status(calls.size());
  status[2] = Status::Error(StatusCode::kMismatch, "refused before");
  q.AddEach(calls, status);
  EXPECT_TRUE(status[0].ok());
  EXPECT_EQ(status[1].code, StatusCode::kDuplicateName);
  EXPECT_EQ(status[2].message, "refused before");
  EXPECT_TRUE(status[3].ok());
  EXPECT_EQ(status[4].code, StatusCode::kDuplicateName);
  // Queued calls moved out; refused ones keep their entries for the caller.
  EXPECT_TRUE(calls[0].empty());
  EXPECT_EQ(calls[1].size(), 2u);
  EXPECT_EQ(calls[2].size(), 1u);
  EXPECT_TRUE(calls[3].empty());
  EXPECT_EQ(calls[4].size(), 1u);
  std::vector<const Request*> popped;
  q.PopRequests(popped);
  EXPECT_EQ(Names(popped), (std::vector<std::string>{"a", "x", "y", "w"}));
  // Peeked under one lock, in the order asked, null for a name not in flight.
  std::vector<const TensorEntry*> peeked;
  q.PeekEach({"w", "z", "a"}, peeked);
  ASSERT_EQ(peeked.size(), 3u);
  ASSERT_NE(peeked[0], nullptr);
  EXPECT_EQ(peeked[0]->request.name, "w");
  EXPECT_EQ(peeked[1], nullptr);
  EXPECT_NE(peeked[2], nullptr);
  EXPECT_EQ(peeked[2], q.Peek("a"));
  std::vector<EntryPtr> taken;
  q.TakeEach(std::vector<std::string_view>{"y", "a"}, taken);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0]->request.name, "y");
  EXPECT_EQ(taken[1]->request.name, "a");
  EXPECT_EQ(q.InFlight(), 2u);
}

TEST(TensorQueue, TakeAllEmptiesTableAndUnsentList) {
  TensorQueue q;
  ASSERT_TRUE(q.Add(Call({"a", "b"})).ok());
  std::vector<EntryPtr> all = q.TakeAll();
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(q.InFlight(), 0u);
  EXPECT_FALSE(q.HasUnsent());
  EXPECT_FALSE(q.Find("a").has_value());
}

// InFlight and Unsent take no lock: counts kept with every change made under it, which another
// thread reads once it has synchronised with the changing one (here, by joining it).
TEST(TensorQueue, CountsFollowEveryChangeAndAreReadWithoutTheLock) {
  TensorQueue q;
  std::thread([&] {
    std::vector<std::vector<EntryPtr>> calls;
    calls.push_back(Call({"a", "b"}));
    calls.push_back(Call({"c", "a"}));  // a duplicate: taken back, counts as they were
    calls.push_back(Call({"d"}));
    std::vector<Status> status(calls.size());
    q.AddEach(calls, status);
  }).join();
  EXPECT_EQ(q.InFlight(), 3u);
  EXPECT_EQ(q.Unsent(), 3u);
  EXPECT_FALSE(q.Add(Call({"e", "d"})).ok());
  EXPECT_EQ(q.InFlight(), 3u);
  EXPECT_EQ(q.Unsent(), 3u);
  std::vector<EntryPtr> taken;
  q.TakeEach(std::vector<std::string_view>{"b"}, taken);  // unsent: leaves the unsent list too
  EXPECT_EQ(q.InFlight(), 2u);
  EXPECT_EQ(q.Unsent(), 2u);
  std::vector<const Request*> popped;
  q.PopRequests(popped);
  EXPECT_EQ(q.InFlight(), 2u);
  EXPECT_FALSE(q.HasUnsent());
  ASSERT_NE(q.Take("a"), nullptr);
  EXPECT_EQ(q.InFlight(), 1u);
  ASSERT_TRUE(q.Add(Call({"f"})).ok());
  EXPECT_EQ(q.InFlight(), 2u);
  EXPECT_EQ(q.Unsent(), 1u);
  EXPECT_EQ(q.TakeAll().size(), 2u);
  EXPECT_EQ(q.InFlight(), 0u);
  EXPECT_EQ(q.Unsent(), 0u);
}

}  // namespace
}  // namespace kolo

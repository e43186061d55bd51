// Whole engines over the shared-memory transport, in steady state: the data of small cached
// allreduces, broadcasts and allgathers travels with the negotiation's votes, and what cannot
// still completes exactly after them.
#include "engine_cache_fixture.h"

namespace kolo {
namespace {

// The cache tests' fixture, under its own name (a test suite's fixture is one class per binary).
class EngineVotes : public EngineCache {};

// On shared memory, a cycle's votes carry the data of the small cached allreduces each rank votes
// ready, and those complete from it: no data round at all in steady state, for every op, a
// packed group's parts and several names per cycle, with the usual path's exact results.
TEST_F(EngineVotes, SmallCachedAllreducesCompleteInTheVotesRound) {
  Start(3);
  for (int step = 0; step < 12; ++step) {
    if (step == 2) {
      for (int r = 0; r < 3; ++r) counts_[r].allreduces = counts_[r].in_place = counts_[r].gathers = 0;
    }
    const auto f = [step](int r) { return static_cast<float>(r + step); };
    for (int r = 0; r < 3; ++r) {
      ASSERT_TRUE(Submit(r, Allreduce("sum", {5}), std::vector<float>(5, f(r))).ok());
      ASSERT_TRUE(Submit(r, Allreduce("avg", {3}, ReduceOp::kAverage), std::vector<float>(3, f(r))).ok());
      ASSERT_TRUE(Submit(r, Allreduce("max", {1000}, ReduceOp::kMax), std::vector<float>(1000, f(r))).ok());
      ASSERT_TRUE(SubmitPacked(r, "packed", {{2}, {3, 2}}, static_cast<float>(step)).ok());
    }
    ExpectAll("sum", 5, f(0) + f(1) + f(2));
    ExpectAll("avg", 3, (f(0) + f(1) + f(2)) / 3);
    ExpectAll("max", 1000, f(2));
    ExpectPackedSums("packed", {{2}, {3, 2}}, static_cast<float>(step));
  }
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(counts_[r].allreduces.load(), 0) << "rank " << r;
    EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
    EXPECT_GE(counts_[r].in_place.load(), 10) << "rank " << r;
  }
}

// Small cached broadcasts travel with the votes too: the root publishes its data beside them and
// every other rank copies it out, so steady steps run no broadcast round and no gather. In the
// same cycles as an allreduce, from two roots, one of them into a separate output on the root.
TEST_F(EngineVotes, SmallCachedBroadcastsCompleteInTheVotesRound) {
  Start(3);
  std::vector<std::vector<float>> separate(3, std::vector<float>(4));
  for (int step = 0; step < 12; ++step) {
    if (step == 2) {
      for (int r = 0; r < 3; ++r) counts_[r].broadcasts = counts_[r].allreduces = counts_[r].gathers = 0;
    }
    const auto f = [step](int r) { return static_cast<float>(100 * r + step); };
    for (int r = 0; r < 3; ++r) {
      Request b = Allreduce("b", {6});
      b.type = RequestType::kBroadcast;
      b.root = 1;
      ASSERT_TRUE(Submit(r, b, std::vector<float>(6, f(r))).ok());
      // Root 0, into an output apart from the input on every rank.
      Request c = Allreduce("c", {4});
      c.type = RequestType::kBroadcast;
      c.root = 0;
      auto& in = buffers_[{r, "c"}];
      in.assign(4, f(r) + 0.5f);
      std::fill(separate[r].begin(), separate[r].end(), -1.0f);
      ASSERT_TRUE(SubmitEntry(r, c, in.data(), separate[r].data()).ok());
      ASSERT_TRUE(Submit(r, Allreduce("s", {2}), std::vector<float>(2, f(r))).ok());
    }
    ExpectAll("b", 6, f(1));
    ExpectAll("c", 4, f(0) + 0.5f);
    ExpectAll("s", 2, f(0) + f(1) + f(2));
    for (int r = 0; r < 3; ++r) {
      const std::vector<float>& input = buffers_[{r, "c"}];
      ASSERT_EQ(input, std::vector<float>(4, f(r) + 0.5f)) << "input left as it was, rank " << r;
    }
  }
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(counts_[r].broadcasts.load(), 0) << "rank " << r;
    EXPECT_EQ(counts_[r].allreduces.load(), 0) << "rank " << r;
    EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
  }
}

// Small cached allgathers travel with the votes as well: each rank publishes its own rows (rank r
// sends r + 1 rows here, so the ranks' shares differ) and every rank lays all of them out in
// rank order, into its output where it gave one of the gathered size (rank 0) or a new result.
TEST_F(EngineVotes, SmallCachedAllgathersCompleteInTheVotesRound) {
  Start(3);
  std::vector<float> into(2 * (1 + 2 + 3));
  for (int step = 0; step < 12; ++step) {
    if (step == 2) {
      for (int r = 0; r < 3; ++r) counts_[r].allgathers = counts_[r].allreduces = counts_[r].gathers = 0;
    }
    auto value = [step](int r, int i) { return static_cast<float>(100 * step + 10 * r + i); };
    std::fill(into.begin(), into.end(), -1.0f);
    for (int r = 0; r < 3; ++r) {
      Request g = Allreduce("g", {r + 1, 2});
      g.type = RequestType::kAllgather;
      auto& in = buffers_[{r, "g"}];
      in.resize(static_cast<size_t>(2 * (r + 1)));
      for (size_t i = 0; i < in.size(); ++i) in[i] = value(r, static_cast<int>(i));
      // Rank 0 gathers into `into`; the others into a new result.
      const bool own = r == 0;
      ASSERT_TRUE(SubmitEntry(r, g, in.data(), own ? into.data() : nullptr, own ? into.size() * sizeof(float) : 0).ok());
      ASSERT_TRUE(Submit(r, Allreduce("s", {2}), std::vector<float>(2, static_cast<float>(r + step))).ok());
    }
    std::vector<float> want;
    for (int q = 0; q < 3; ++q) {
      for (int i = 0; i < 2 * (q + 1); ++i) want.push_back(value(q, i));
    }
    for (int r = 0; r < 3; ++r) {
      auto [entry, status] = sinks_[r]->Wait("g");
      ASSERT_TRUE(status.ok()) << status.message;
      ASSERT_EQ(entry->result_splits, (std::vector<int64_t>{1, 2, 3})) << "step " << step << " rank " << r;
      const float* got = r == 0 ? into.data() : reinterpret_cast<const float*>(entry->result.data());
      ASSERT_EQ(r == 0 ? entry->result.size() : entry->result.size() / sizeof(float), r == 0 ? 0 : want.size());
      ASSERT_EQ(std::vector<float>(got, got + want.size()), want) << "step " << step << " rank " << r;
    }
    ExpectAll("s", 2, static_cast<float>(3 * step + 3));
  }
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(counts_[r].allgathers.load(), 0) << "rank " << r;
    EXPECT_EQ(counts_[r].allreduces.load(), 0) << "rank " << r;
    EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
  }
}

// A rank that votes ready alone sends its data for nothing and sends it again next cycle; what
// cannot travel with the votes (a prescale, more than a direct round's bytes) takes the usual
// data round after them. Either way the results are exact.
TEST_F(EngineVotes, AllreducesThatCannotTravelWithTheVotesStillCompleteExactly) {
  Start(2);
  for (int step = 0; step < 8; ++step) {
    if (step == 2) {
      for (int r = 0; r < 2; ++r) counts_[r].allreduces = 0;
    }
    const auto f = [step](int r) { return static_cast<float>(r + 2 * step); };
    ASSERT_TRUE(Submit(0, Allreduce("late", {7}), std::vector<float>(7, f(0))).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    ASSERT_TRUE(Submit(1, Allreduce("late", {7}), std::vector<float>(7, f(1))).ok());
    ExpectAll("late", 7, f(0) + f(1));
    for (int r = 0; r < 2; ++r) {
      Request scaled = Allreduce("scaled", {4});
      scaled.prescale = 2.0;
      ASSERT_TRUE(Submit(r, scaled, std::vector<float>(4, f(r))).ok());
      ASSERT_TRUE(Submit(r, Allreduce("big", {16384}), std::vector<float>(16384, f(r))).ok());
    }
    ExpectAll("scaled", 4, 2 * (f(0) + f(1)));
    ExpectAll("big", 16384, f(0) + f(1));
  }
  // "scaled" and "big" run after the vote every step (with the votes' own round, at least 2).
  for (int r = 0; r < 2; ++r) EXPECT_GE(counts_[r].allreduces.load(), 2 * 6) << "rank " << r;
}

}  // namespace
}  // namespace kolo

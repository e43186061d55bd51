// Whole engines (one per thread) over the shared-memory transport: repeated names are agreed
// through the response cache, without the coordinator's gather, and a changed request still
// fails with the coordinator's exact mismatch message on every rank.
#include "engine_cache_fixture.h"

namespace kolo {
namespace {

TEST_F(EngineCache, RepeatedNamesSkipTheCoordinatorsGather) {
  Start(3);
  for (int step = 0; step < 20; ++step) {
    for (int r = 0; r < 3; ++r) {
      ASSERT_TRUE(Submit(r, Allreduce("w", {4}), std::vector<float>(4, static_cast<float>(r + step))).ok());
    }
    if (step == 1) {
      for (int r = 0; r < 3; ++r) counts_[r].gathers = 0;  // from here on "w" is cached
    }
    for (int r = 0; r < 3; ++r) {
      auto [entry, status] = sinks_[r]->Wait("w");
      ASSERT_TRUE(status.ok()) << status.message;
      const float* out = static_cast<const float*>(entry->output);
      for (int i = 0; i < 4; ++i) ASSERT_EQ(out[i], static_cast<float>(3 + 3 * step));
    }
  }
  // Cycles after the cache was warm ran no gather at all (idle cycles do not gather either).
  for (int r = 0; r < 3; ++r) EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
}

// An allgather repeated with the same shapes is agreed through the cache (no gather of requests
// at the coordinator), and its cached response still carries every rank's row count: when one
// rank changes its rows, every rank's next result has the new sizes, never the cached ones.
TEST_F(EngineCache, RepeatedAllgathersSkipTheGatherAndAChangedRowCountIsRenegotiated) {
  Start(3);
  // Rank r sends rows(r, step) rows of 2; rank 1 sends 3 rows at steps 6 and 7 instead of 1.
  auto rows = [](int r, int step) -> int64_t { return r == 1 && (step == 6 || step == 7) ? 3 : r; };
  for (int step = 0; step < 10; ++step) {
    if (step == 2) {
      for (int r = 0; r < 3; ++r) counts_[r].gathers = 0;  // "g" is cached from here on
    }
    if (step == 6) {
      // Steps 2-5 repeated the cached shapes: no gather at all.
      for (int r = 0; r < 3; ++r) EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
    }
    for (int r = 0; r < 3; ++r) {
      Request g;
      g.type = RequestType::kAllgather;
      g.name = "g";
      g.dtype = DataType::kFloat32;
      g.shape = {rows(r, step), 2};
      std::vector<float> data(static_cast<size_t>(rows(r, step) * 2));
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(100 * step + 10 * r + static_cast<int>(i));
      ASSERT_TRUE(Submit(r, g, std::move(data)).ok());
    }
    std::vector<float> want;
    for (int q = 0; q < 3; ++q) {
      for (int64_t i = 0; i < rows(q, step) * 2; ++i) want.push_back(static_cast<float>(100 * step + 10 * q + i));
    }
    for (int r = 0; r < 3; ++r) {
      auto [entry, status] = sinks_[r]->Wait("g");
      ASSERT_TRUE(status.ok()) << status.message;
      const std::vector<int64_t> splits = {rows(0, step), rows(1, step), rows(2, step)};
      ASSERT_EQ(entry->result_splits, splits) << "step " << step << " rank " << r;
      ASSERT_EQ(entry->result.size(), want.size() * sizeof(float)) << "step " << step << " rank " << r;
      const float* got = reinterpret_cast<const float*>(entry->result.data());
      ASSERT_EQ(std::vector<float>(got, got + want.size()), want) << "step " << step << " rank " << r;
    }
  }
  // The changes at steps 6 and 8 went through the coordinator.
  for (int r = 0; r < 3; ++r) EXPECT_GT(counts_[r].gathers.load(), 0) << "rank " << r;
}

// A grouped call repeated every step (groupedAllreduce in a training loop) is agreed through the
// cache once its members are cached, as single names are.
TEST_F(EngineCache, ARepeatedGroupSkipsTheCoordinatorsGather) {
  Start(2);
  const std::vector<std::string> names = {"g.a", "g.b", "g.c"};
  for (int step = 0; step < 10; ++step) {
    if (step == 2) {
      for (int r = 0; r < 2; ++r) counts_[r].gathers = 0;  // cached after the first step
    }
    RunGroup(names, {{4}, {4}, {4}}, static_cast<float>(step));
  }
  for (int r = 0; r < 2; ++r) EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
}

// One member that misses (here a changed shape, the same on every rank, so no mismatch) sends
// the whole group to the coordinator: were the others taken from the cache, the coordinator
// would wait forever for the rest of the group. The group is cached again afterwards.
// groupedAllreduce's arrays travel as one request with parts: cached as one name, fused with
// other allreduces, and negotiated again (never a stale hit) when the parts change but their
// total does not.
TEST_F(EngineCache, APackedGroupIsCachedAsOneNameAndItsPartsAreChecked) {
  Start(2);
  const std::vector<std::vector<int64_t>> shapes = {{2}, {3}};
  for (int step = 0; step < 6; ++step) {
    if (step == 2) {
      for (int r = 0; r < 2; ++r) counts_[r].gathers = 0;  // cached after the first step
    }
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(SubmitPacked(r, "p", shapes, static_cast<float>(step)).ok());
      ASSERT_TRUE(Submit(r, Allreduce("w", {4}), std::vector<float>(4, 1.0f)).ok());
    }
    ExpectPackedSums("p", shapes, static_cast<float>(step));
    for (int r = 0; r < 2; ++r) {
      auto [entry, status] = sinks_[r]->Wait("w");
      ASSERT_TRUE(status.ok()) << status.message;
      EXPECT_EQ(static_cast<const float*>(entry->output)[3], 2.0f);
    }
  }
  for (int r = 0; r < 2; ++r) EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;

  // The same 5 elements as [3] then [2]: the cached [2], [3] must not be taken for it.
  const std::vector<std::vector<int64_t>> swapped = {{3}, {2}};
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(SubmitPacked(r, "p", swapped, 10.0f).ok());
  ExpectPackedSums("p", swapped, 10.0f);
  for (int r = 0; r < 2; ++r) EXPECT_GT(counts_[r].gathers.load(), 0) << "rank " << r;

  // The ranks disagree on the parts: both get the coordinator's message.
  ASSERT_TRUE(SubmitPacked(0, "p", shapes, 0.0f).ok());
  ASSERT_TRUE(SubmitPacked(1, "p", swapped, 0.0f).ok());
  for (int r = 0; r < 2; ++r) {
    auto [entry, status] = sinks_[r]->Wait("p");
    EXPECT_EQ(status.code, StatusCode::kMismatch);
    EXPECT_EQ(status.message,
              "Mismatched ALLREDUCE tensor shapes: One rank sent tensor 1 of 2 in the group with "
              "shape [2], but another rank sent it with shape [3].");
  }
}

TEST_F(EngineCache, AGroupWithOneChangedMemberIsNegotiatedWhole) {
  Start(2);
  const std::vector<std::string> names = {"h.a", "h.b", "h.c"};
  RunGroup(names, {{4}, {4}, {4}}, 1);
  RunGroup(names, {{4}, {4}, {4}}, 2);
  for (int r = 0; r < 2; ++r) counts_[r].gathers = 0;
  RunGroup(names, {{4}, {2, 2}, {4}}, 3);
  for (int r = 0; r < 2; ++r) EXPECT_GT(counts_[r].gathers.load(), 0) << "rank " << r;
  // A new member name joins a cached group's other names: the same, whole.
  RunGroup({"h.a", "h.new", "h.c"}, {{4}, {4}, {4}}, 4);
  RunGroup(names, {{4}, {2, 2}, {4}}, 5);  // re-cached after the changed step
  for (int r = 0; r < 2; ++r) counts_[r].gathers = 0;
  RunGroup(names, {{4}, {2, 2}, {4}}, 6);
  for (int r = 0; r < 2; ++r) EXPECT_EQ(counts_[r].gathers.load(), 0) << "rank " << r;
}

// A name used alternately alone and in a group is renegotiated at each change (its cached
// parameters include the group) and is right every time.
TEST_F(EngineCache, ANameThatMovesInAndOutOfAGroupIsRightEachTime) {
  Start(2);
  auto alone = [&](float base) {
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(Submit(r, Allreduce("w", {4}), std::vector<float>(4, base + static_cast<float>(r))).ok());
    }
    for (int r = 0; r < 2; ++r) {
      auto [entry, status] = sinks_[r]->Wait("w");
      ASSERT_TRUE(status.ok()) << status.message;
      const float* out = static_cast<const float*>(entry->output);
      for (int i = 0; i < 4; ++i) ASSERT_EQ(out[i], 2 * base + 1);
    }
  };
  for (int round = 0; round < 3; ++round) {
    alone(static_cast<float>(10 * round));
    alone(static_cast<float>(10 * round + 1));
    RunGroup({"w", "w.b"}, {{4}, {4}}, static_cast<float>(10 * round + 2));
    RunGroup({"w", "w.b"}, {{4}, {4}}, static_cast<float>(10 * round + 3));
  }
}

TEST_F(EngineCache, AChangedShapeOnOneRankStillFailsWithTheExactMismatchOnEveryRank) {
  Start(2);
  for (int step = 0; step < 3; ++step) {
    for (int r = 0; r < 2; ++r) ASSERT_TRUE(Submit(r, Allreduce("w", {4}), std::vector<float>(4, 1.0f)).ok());
    for (int r = 0; r < 2; ++r) ASSERT_TRUE(sinks_[r]->Wait("w").second.ok());
  }
  ASSERT_TRUE(Submit(0, Allreduce("w", {4}), std::vector<float>(4, 1.0f)).ok());
  ASSERT_TRUE(Submit(1, Allreduce("w", {2, 2}), std::vector<float>(4, 1.0f)).ok());
  for (int r = 0; r < 2; ++r) {
    Status s = sinks_[r]->Wait("w").second;
    EXPECT_EQ(s.code, StatusCode::kMismatch);
    EXPECT_EQ(s.message,
              "Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [4], but "
              "another rank sent a tensor of shape [2, 2].");
  }
  // The name negotiates afresh (and is cached again) with agreeing shapes.
  for (int step = 0; step < 2; ++step) {
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(Submit(r, Allreduce("w", {2, 2}), std::vector<float>(4, 2.0f)).ok());
    }
    for (int r = 0; r < 2; ++r) {
      auto [entry, status] = sinks_[r]->Wait("w");
      ASSERT_TRUE(status.ok()) << status.message;
      EXPECT_EQ(static_cast<const float*>(entry->output)[3], 4.0f);
    }
  }
}

// Cache hits are fused as the coordinator would fuse them, and a cycle whose hits repeat the
// last one's reuses its fused responses: a different set of names, a name whose shape changed
// (evicted and negotiated again) or a new name must each be fused afresh. Every output is
// checked, so a stale fused response (wrong names or sizes) would show up as a wrong value.
TEST_F(EngineCache, RepeatedAndChangingSetsOfCachedNamesFuseCorrectly) {
  Start(2);
  const std::vector<std::vector<std::pair<std::string, int64_t>>> steps = {
      {{"a", 4}, {"b", 4}}, {{"a", 4}, {"b", 4}}, {{"a", 4}, {"c", 2}}, {{"a", 4}, {"c", 2}},
      {{"a", 4}, {"b", 4}, {"c", 2}}, {{"a", 4}, {"b", 4}, {"c", 2}}, {{"a", 4}, {"b", 6}},
      {{"a", 4}, {"b", 6}}, {{"a", 4}, {"b", 6}, {"d", 3}}, {{"a", 4}, {"b", 6}, {"d", 3}},
  };
  for (size_t step = 0; step < steps.size(); ++step) {
    for (int r = 0; r < 2; ++r) {
      for (size_t k = 0; k < steps[step].size(); ++k) {
        const auto& [name, n] = steps[step][k];
        const float value = static_cast<float>(10 * step + k + r);
        ASSERT_TRUE(Submit(r, Allreduce(name, {n}), std::vector<float>(n, value)).ok());
      }
    }
    for (int r = 0; r < 2; ++r) {
      for (size_t k = 0; k < steps[step].size(); ++k) {
        const auto& [name, n] = steps[step][k];
        auto [entry, status] = sinks_[r]->Wait(name);
        ASSERT_TRUE(status.ok()) << "step " << step << " " << name << ": " << status.message;
        const float* out = static_cast<const float*>(entry->output);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(out[i], static_cast<float>(2 * (10 * step + k) + 1))
              << "step " << step << " rank " << r << " " << name << "[" << i << "]";
        }
      }
    }
  }
}

// A step with two sets of cached names (a training step's gradients, then a metric) reuses the
// fused responses of both, not only of the last cycle's: after each set has been fused once,
// alternating them fuses nothing again, until a changed shape changes the cache. Both sets are
// too large to travel with the votes, so their hits are fused and run after the vote. Each
// rank enqueues a step's names at once, so a cycle's hits are always a whole set.
TEST_F(EngineCache, AlternatingSetsOfCachedNamesReuseTheirFusedResponses) {
  Start(2);
  using Set = std::vector<std::pair<std::string, int64_t>>;
  const Set gradients = {{"a", 6000}, {"b", 6000}};
  const Set metric = {{"c", 10000}};
  const Set reshaped = {{"a", 6000}, {"b", 7000}};
  auto run = [&](int step, const Set& set) {
    for (int r = 0; r < 2; ++r) {
      std::vector<EntryPtr> v;
      for (size_t k = 0; k < set.size(); ++k) {
        const auto& [name, n] = set[k];
        auto& buf = buffers_[{r, name}];
        buf.assign(static_cast<size_t>(n), static_cast<float>(10 * step + k + r));
        v.push_back(NewEntry(Allreduce(name, {n}), buf.data(), buf.data()));
      }
      ASSERT_TRUE(engines_[r]->Enqueue(std::move(v), true).ok());
    }
    for (size_t k = 0; k < set.size(); ++k) {
      ExpectAll(set[k].first, static_cast<size_t>(set[k].second), static_cast<float>(2 * (10 * step + k) + 1));
    }
  };
  int step = 0;
  // Negotiated in full the first time, then each set's hits fused once.
  for (int i = 0; i < 2; ++i) {
    run(step++, gradients);
    run(step++, metric);
  }
  std::vector<uint64_t> fused;
  for (int r = 0; r < 2; ++r) fused.push_back(engines_[r]->FusionsOfHits());
  for (int r = 0; r < 2; ++r) EXPECT_EQ(fused[r], 2u) << "rank " << r;
  for (int i = 0; i < 3; ++i) {
    run(step++, gradients);
    run(step++, metric);
  }
  for (int r = 0; r < 2; ++r) EXPECT_EQ(engines_[r]->FusionsOfHits(), fused[r]) << "rank " << r;
  // "b" changes shape: evicted and negotiated again, which changes the cache, so both sets are
  // fused afresh (with the new size: a stale response would leave "b" short or fail).
  for (int i = 0; i < 2; ++i) {
    run(step++, reshaped);
    run(step++, metric);
  }
  for (int r = 0; r < 2; ++r) {
    EXPECT_GT(engines_[r]->FusionsOfHits(), fused[r]) << "rank " << r;
    fused[r] = engines_[r]->FusionsOfHits();
  }
  for (int i = 0; i < 3; ++i) {
    run(step++, reshaped);
    run(step++, metric);
  }
  for (int r = 0; r < 2; ++r) EXPECT_EQ(engines_[r]->FusionsOfHits(), fused[r]) << "rank " << r;
}

// A name evicted by a mismatch is not cached again, so a later name takes over its cache index.
// The first hit of that new name repeats the index of the last cycle that had hits, and must
// still run under the new name (a reused fused response would name the old one, whose entry no
// longer exists).
TEST_F(EngineCache, ANewNameUnderAnEvictedNamesIndexIsNotMistakenForIt) {
  Start(2);
  auto run = [&](const std::string& name, std::vector<int64_t> shape0, std::vector<int64_t> shape1) {
    std::vector<Status> out;
    for (int r = 0; r < 2; ++r) {
      EXPECT_TRUE(Submit(r, Allreduce(name, r == 0 ? shape0 : shape1), std::vector<float>(4, 1.0f + r)).ok());
    }
    for (int r = 0; r < 2; ++r) {
      auto [entry, status] = sinks_[r]->Wait(name);
      if (status.ok()) {
        const float* v = static_cast<const float*>(entry->output);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], 3.0f) << name << " rank " << r;
      }
      out.push_back(status);
    }
    return out;
  };
  run("x", {4}, {4});  // negotiated in full and cached
  run("x", {4}, {4});  // a hit: the last cycle with hits
  for (const Status& s : run("x", {4}, {2, 2})) EXPECT_EQ(s.code, StatusCode::kMismatch);
  for (const Status& s : run("y", {4}, {4})) EXPECT_TRUE(s.ok()) << s.message;  // cached under x's index
  for (const Status& s : run("y", {4}, {4})) EXPECT_TRUE(s.ok()) << s.message;
}

// Callers that queue requests at about the same time on every rank all run the cycle on their
// own threads (TryDriveOnce announces it and waits for the peers' announcements), so none hands
// it to its background thread. Without the announcement only a caller whose peers already wait
// in the cycle runs it: at most one of the two callers per step, 20 in all. The background
// threads run no idle cycles here, which could otherwise take a step.
TEST_F(EngineCache, CallersThatQueueTogetherRunTheCycleOnTheirOwnThreads) {
  spin_us_ = 5'000'000;
  idle_wake_ms_ = 600'000;
  Start(2);
  // Once both engines are connected (before that, no caller may run a cycle).
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(Submit(r, Allreduce("up", {1}), {1.0f}).ok());
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(sinks_[r]->Wait("up").second.ok());
  // The background threads finish that cycle (they hold the cycle lock to its end), then sleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  int drove[2] = {0, 0};
  for (int step = 0; step < 20; ++step) {
    std::thread callers[2];
    for (int r = 0; r < 2; ++r) {
      callers[r] = std::thread([&, r] {
        const float value = static_cast<float>(r + step);
        ASSERT_TRUE(Submit(r, Allreduce("w", {4}), std::vector<float>(4, value), false).ok());
        if (engines_[r]->TryDriveOnce()) {
          ++drove[r];
        } else {
          engines_[r]->Wake();
        }
      });
    }
    for (auto& c : callers) c.join();
    for (int r = 0; r < 2; ++r) {
      auto [entry, status] = sinks_[r]->Wait("w");
      ASSERT_TRUE(status.ok()) << status.message;
      const float* out = static_cast<const float*>(entry->output);
      for (int i = 0; i < 4; ++i) ASSERT_EQ(out[i], static_cast<float>(1 + 2 * step));
    }
  }
  // All 40 unless a thread of this loaded machine lost its CPU at the wrong moment.
  EXPECT_GE(drove[0] + drove[1], 38) << "rank 0 drove " << drove[0] << ", rank 1 " << drove[1];
}

// A caller whose peer does not queue within the spin time publishes its votes, spins, and hands
// the begun cycle to its background thread, which ends it once the late peer's request arrives
// (LatePeerRound). The spin grows by kCallerSpinPerCallUs for each further call of the caller's
// turn (a second round, under another name).
TEST_F(EngineCache, ACallerWhosePeerIsLateHandsTheCycleToItsBackgroundThread) {
  StartForLatePeers();
  LatePeerRound("w", 1, spin_us_);
  // A turn of 20,001 calls: 20 ms more, far past what a preempted 2 ms spin could last.
  LatePeerRound("v", 20'001, spin_us_ + 20'000 * kCallerSpinPerCallUs);
}

// With the response cache off there are no votes to publish (every cycle negotiates in full):
// the caller announces its cycle instead and withdraws when the peer is late; it must not wait
// for the peer in the negotiation itself.
TEST_F(EngineCache, WithTheCacheOffACallerWhosePeerIsLateStillLeavesTheCycleToItsThread) {
  cache_capacity_ = 0;
  StartForLatePeers();
  LatePeerRound("w", 1, spin_us_);
}

}  // namespace
}  // namespace kolo

// Whole engines (one per thread) over the shared-memory transport: repeated names are agreed
// through the response cache, without the coordinator's gather, and a changed request still
// fails with the coordinator's exact mismatch message on every rank.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "engine/engine.h"
#include "forwarding_transport.h"
#include "memory_store.h"
#include "transport/shm_transport.h"

namespace kolo {
namespace {

// Forwards to a real transport and counts the coordinator's gathers, the allreduce rounds (the
// data's, and the votes' when they do not go in place) and the in-place rounds.
struct Counts {
  std::atomic<int> gathers{0};
  std::atomic<int> allreduces{0};
  std::atomic<int> in_place{0};
  std::atomic<int> broadcasts{0};
  std::atomic<int> allgathers{0};
};

class CountingTransport : public ForwardingTransport {
 public:
  CountingTransport(std::unique_ptr<Transport> inner, Counts* counts)
      : ForwardingTransport(std::move(inner)), counts_(counts) {}
  std::vector<std::vector<char>> GatherToRoot(const std::vector<char>& mine) override {
    ++counts_->gathers;
    return ForwardingTransport::GatherToRoot(mine);
  }
  // AllreduceInto and AllreduceSegments are not forwarded: their defaults come here.
  void Allreduce(void* d, int64_t n, DataType t, ReduceOp op) override {
    ++counts_->allreduces;
    ForwardingTransport::Allreduce(d, n, t, op);
  }
  const char* const* ExchangeInPlace(const char* what) override {
    ++counts_->in_place;
    return ForwardingTransport::ExchangeInPlace(what);
  }
  void Broadcast(void* data, size_t bytes, int root) override {
    ++counts_->broadcasts;
    ForwardingTransport::Broadcast(data, bytes, root);
  }
  void Allgatherv(const void* in, void* out, const std::vector<size_t>& counts, size_t esize) override {
    ++counts_->allgathers;
    ForwardingTransport::Allgatherv(in, out, counts, esize);
  }

 private:
  Counts* counts_;
};

// Hands each finished entry to the waiting test thread, in completion order.
class QueueSink : public CompletionSink {
 public:
  void Finish(EntryPtr entry, const Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string name = entry->request.name;
    done_[name] = {std::move(entry), status};
    cv_.notify_all();
  }
  void EndOfCycle() override {}
  void Started(const Status&) override {}
  void Stopped(const Status&) override {}
  // Fails (instead of hanging the test run) when `name` does not finish within 20 s.
  std::pair<EntryPtr, Status> Wait(const std::string& name) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(20), [&] { return done_.count(name) != 0; })) {
      return {nullptr, Status::Error(StatusCode::kTimeout, "'" + name + "' did not finish in 20 s")};
    }
    auto out = std::move(done_[name]);
    done_.erase(name);
    return out;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::pair<EntryPtr, Status>> done_;
};

Request Allreduce(const std::string& name, std::vector<int64_t> shape);

class EngineCache : public ::testing::Test {
 protected:
  void Start(int size) {
    size_ = size;
    for (int r = 0; r < size; ++r) sinks_.push_back(std::make_unique<QueueSink>());
    for (int r = 0; r < size; ++r) {
      EngineConfig config;
      config.rank = r;
      config.size = size;
      config.timeout_ms = 10000;
      config.caller_spin_us = spin_us_;
      config.idle_wake_ms = idle_wake_ms_;
      Connector connect = [this, r, size]() {
        ShmOptions o;
        o.rank = r;
        o.size = size;
        o.timeout = std::chrono::milliseconds(10000);
        o.store_key = "cache-test/shm";
        o.name_prefix = "enginecachetest";
        Connection c;
        c.transport = std::make_unique<CountingTransport>(std::make_unique<ShmTransport>(store_, o),
                                                          &counts_[r]);
        return c;
      };
      engines_.push_back(std::make_unique<Engine>(config, connect, sinks_[r].get()));
    }
  }
  void TearDown() override {
    for (auto& e : engines_) e->RequestShutdown();
    for (auto& e : engines_) e->Join();
  }
  // Waits for `name` on every rank and checks that each element is `want`.
  void ExpectAll(const std::string& name, size_t count, float want) {
    for (int r = 0; r < size_; ++r) {
      auto [entry, status] = sinks_[r]->Wait(name);
      ASSERT_TRUE(status.ok()) << status.message;
      const float* out = static_cast<const float*>(entry->output);
      for (size_t i = 0; i < count; ++i) ASSERT_EQ(out[i], want) << name << " on rank " << r << " at " << i;
    }
  }

  // Submits one allreduce on `rank` whose data lives in `buffers_`.
  Status Submit(int rank, Request r, std::vector<float> data, bool wake = true) {
    auto& buf = buffers_[{rank, r.name}];
    buf = std::move(data);
    auto e = std::make_unique<TensorEntry>();
    e->request = r;
    e->input = buf.data();
    e->output = buf.data();
    e->owner = std::make_shared<int>(0);
    std::vector<EntryPtr> v;
    v.push_back(std::move(e));
    return engines_[rank]->Enqueue(std::move(v), wake);
  }

  // Submits the members `names` (one shape each) as one grouped call on every rank, rank r's
  // member k holding base + r + k, and checks every rank's sums.
  void RunGroup(const std::vector<std::string>& names, const std::vector<std::vector<int64_t>>& shapes,
                float base) {
    for (int r = 0; r < size_; ++r) {
      std::vector<EntryPtr> v;
      auto owner = std::make_shared<int>(0);
      for (size_t k = 0; k < names.size(); ++k) {
        Request req = Allreduce(names[k], shapes[k]);
        req.group = names[0] + "#group";
        req.group_size = static_cast<int32_t>(names.size());
        auto& buf = buffers_[{r, names[k]}];
        buf.assign(static_cast<size_t>(NumElements(shapes[k])), base + static_cast<float>(r + k));
        auto e = std::make_unique<TensorEntry>();
        e->request = req;
        e->input = buf.data();
        e->output = buf.data();
        e->owner = owner;
        e->index = static_cast<int>(k);
        v.push_back(std::move(e));
      }
      ASSERT_TRUE(engines_[r]->Enqueue(std::move(v), true).ok());
    }
    float ranks = 0;
    for (int r = 0; r < size_; ++r) ranks += static_cast<float>(r);
    for (int r = 0; r < size_; ++r) {
      for (size_t k = 0; k < names.size(); ++k) {
        auto [entry, status] = sinks_[r]->Wait(names[k]);
        ASSERT_TRUE(status.ok()) << status.message;
        const float* out = static_cast<const float*>(entry->output);
        const float want = static_cast<float>(size_) * (base + static_cast<float>(k)) + ranks;
        for (int64_t i = 0; i < NumElements(shapes[k]); ++i) ASSERT_EQ(out[i], want) << names[k];
      }
    }
  }

  // Submits `name` on `rank` as a packed group (one request, Request::parts) of arrays with
  // `shapes`, part k holding base + rank + k, each in its own buffer.
  Status SubmitPacked(int rank, const std::string& name, const std::vector<std::vector<int64_t>>& shapes,
                      float base) {
    Request req;
    int64_t total = 0;
    for (const auto& shape : shapes) {
      req.parts.push_back(static_cast<int64_t>(shape.size()));
      req.parts.insert(req.parts.end(), shape.begin(), shape.end());
      total += NumElements(shape);
    }
    Request r = Allreduce(name, {total});
    r.parts = req.parts;
    auto e = std::make_unique<TensorEntry>();
    e->request = r;
    for (size_t k = 0; k < shapes.size(); ++k) {
      auto& buf = buffers_[{rank, name + "." + std::to_string(k)}];
      buf.assign(static_cast<size_t>(NumElements(shapes[k])), base + static_cast<float>(rank + k));
      e->parts.push_back({buf.data(), buf.data(), buf.size() * sizeof(float)});
    }
    e->owner = std::make_shared<int>(0);
    std::vector<EntryPtr> v;
    v.push_back(std::move(e));
    return engines_[rank]->Enqueue(std::move(v), true);
  }

  // Waits for packed group `name` on every rank and checks each part's sums.
  void ExpectPackedSums(const std::string& name, const std::vector<std::vector<int64_t>>& shapes,
                        float base) {
    float ranks = 0;
    for (int r = 0; r < size_; ++r) ranks += static_cast<float>(r);
    for (int r = 0; r < size_; ++r) {
      auto [entry, status] = sinks_[r]->Wait(name);
      ASSERT_TRUE(status.ok()) << status.message;
      ASSERT_EQ(entry->parts.size(), shapes.size());
      for (size_t k = 0; k < shapes.size(); ++k) {
        const float* out = static_cast<const float*>(entry->parts[k].out);
        const float want = static_cast<float>(size_) * (base + static_cast<float>(k)) + ranks;
        for (int64_t i = 0; i < NumElements(shapes[k]); ++i) ASSERT_EQ(out[i], want) << name << " part " << k;
      }
    }
  }

  int size_ = 0;
  int64_t spin_us_ = EngineConfig().caller_spin_us;
  int64_t idle_wake_ms_ = EngineConfig().idle_wake_ms;
  MemoryStore store_;
  Counts counts_[4];
  std::vector<std::unique_ptr<QueueSink>> sinks_;
  std::vector<std::unique_ptr<Engine>> engines_;
  std::map<std::pair<int, std::string>, std::vector<float>> buffers_;
};

Request Allreduce(const std::string& name, std::vector<int64_t> shape) {
  Request r;
  r.type = RequestType::kAllreduce;
  r.name = name;
  r.dtype = DataType::kFloat32;
  r.shape = std::move(shape);
  r.reduce_op = ReduceOp::kSum;
  return r;
}

Request Allreduce(const std::string& name, std::vector<int64_t> shape, ReduceOp op) {
  Request r = Allreduce(name, std::move(shape));
  r.reduce_op = op;
  return r;
}

// On shared memory, a cycle's votes carry the data of the small cached allreduces each rank votes
// ready, and those complete from it: no data round at all in steady state, for every op, a
// packed group's parts and several names per cycle, with the usual path's exact results.
TEST_F(EngineCache, SmallCachedAllreducesCompleteInTheVotesRound) {
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
TEST_F(EngineCache, SmallCachedBroadcastsCompleteInTheVotesRound) {
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
      auto e = std::make_unique<TensorEntry>();
      e->request = c;
      e->input = in.data();
      e->output = separate[r].data();
      e->owner = std::make_shared<int>(0);
      std::vector<EntryPtr> v;
      v.push_back(std::move(e));
      ASSERT_TRUE(engines_[r]->Enqueue(std::move(v), true).ok());
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
TEST_F(EngineCache, SmallCachedAllgathersCompleteInTheVotesRound) {
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
      auto e = std::make_unique<TensorEntry>();
      e->request = g;
      e->input = in.data();
      if (r == 0) {
        e->output = into.data();
        e->output_bytes = into.size() * sizeof(float);
      }
      e->owner = std::make_shared<int>(0);
      std::vector<EntryPtr> v;
      v.push_back(std::move(e));
      ASSERT_TRUE(engines_[r]->Enqueue(std::move(v), true).ok());
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
TEST_F(EngineCache, AllreducesThatCannotTravelWithTheVotesStillCompleteExactly) {
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

// A caller whose peer does not queue within the spin time withdraws its announcement and hands
// the cycle to its background thread; the late peer's request then completes with it.
TEST_F(EngineCache, ACallerWhosePeerIsLateHandsTheCycleToItsBackgroundThread) {
  spin_us_ = 2000;
  idle_wake_ms_ = 600'000;  // no idle cycle may hold the cycle lock or wait in a cycle
  Start(2);
  // Once both engines are connected (before that, no caller may run a cycle).
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(Submit(r, Allreduce("up", {1}), {1.0f}).ok());
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(sinks_[r]->Wait("up").second.ok());
  ASSERT_TRUE(Submit(0, Allreduce("w", {4}), std::vector<float>(4, 1.0f), false).ok());
  // The background thread may still be finishing the cycle that ran "up" (it holds the cycle
  // lock until the cycle ends), and then the call returns at once; try again until it spins.
  bool spun = false;
  for (int attempt = 0; attempt < 100 && !spun; ++attempt) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_FALSE(engines_[0]->TryDriveOnce());
    spun = std::chrono::steady_clock::now() - t0 >= std::chrono::microseconds(spin_us_);
    if (!spun) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(spun) << "TryDriveOnce never waited the spin time for the late peer";
  engines_[0]->Wake();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(Submit(1, Allreduce("w", {4}), std::vector<float>(4, 2.0f)).ok());
  for (int r = 0; r < 2; ++r) {
    auto [entry, status] = sinks_[r]->Wait("w");
    ASSERT_TRUE(status.ok()) << status.message;
    const float* out = static_cast<const float*>(entry->output);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 3.0f) << "rank " << r;
  }
}

}  // namespace
}  // namespace kolo

// Whole engines, one per thread, joined through Gloo's in-memory HashStore.
#include <gloo/rendezvous/hash_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "engine/engine.h"
#include "memory_store.h"
#include "transport/gloo_transport.h"

namespace kolo {
namespace {

class RecordingSink : public CompletionSink {
 public:
  void Finish(EntryPtr entry, const Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    statuses_[entry->request.name] = status;
    entries_[entry->request.name] = std::move(entry);
    cv_.notify_all();
  }
  void EndOfCycle() override {}
  void Started(const Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    cv_.notify_all();
  }
  void Stopped(const Status&) override {}

  Status Wait(const std::string& name) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return statuses_.count(name) != 0; });
    return statuses_[name];
  }
  TensorEntry& Entry(const std::string& name) { return *entries_[name]; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  std::map<std::string, Status> statuses_;
  std::map<std::string, EntryPtr> entries_;
};

struct Rank {
  RecordingSink sink;
  std::unique_ptr<Engine> engine;
  std::vector<std::vector<char>> buffers;

  Status Submit(Request r, const void* data, size_t bytes, bool with_output = true) {
    buffers.emplace_back(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
    auto e = std::make_unique<TensorEntry>();
    e->request = r;
    e->input = buffers.back().data();
    if (with_output) e->output = buffers.back().data();
    e->owner = std::make_shared<int>(0);
    std::vector<EntryPtr> v;
    v.push_back(std::move(e));
    return engine->Enqueue(std::move(v));
  }
};

class EngineThreads : public ::testing::Test {
 protected:
  void Start(int size) {
    store_ = std::make_shared<gloo::rendezvous::HashStore>();
    for (int r = 0; r < size; ++r) ranks_.push_back(std::make_unique<Rank>());
    for (int r = 0; r < size; ++r) {
      EngineConfig config;
      config.rank = r;
      config.size = size;
      config.timeout_ms = 10000;
      auto store = store_;
      Connector connect = [store, r, size]() {
        GlooOptions o;
        o.rank = r;
        o.size = size;
        o.hostname = "127.0.0.1";
        o.timeout = std::chrono::milliseconds(10000);
        gloo::rendezvous::PrefixStore prefixed("test", *store);
        Connection c;
        c.transport = std::make_unique<GlooTransport>(prefixed, o);
        c.connect_subset = [store, o](const std::string& scope, const std::vector<int>& ranks,
                                      int rank) {
          GlooOptions sub = o;
          sub.rank = rank;
          sub.size = static_cast<int>(ranks.size());
          gloo::rendezvous::PrefixStore view("test/" + scope, *store);
          return std::unique_ptr<Transport>(new GlooTransport(view, sub));
        };
        return c;
      };
      ranks_[r]->engine = std::make_unique<Engine>(config, connect, &ranks_[r]->sink);
    }
  }
  void TearDown() override {
    for (auto& r : ranks_) r->engine->RequestShutdown();
    for (auto& r : ranks_) r->engine->Join();
  }
  std::shared_ptr<gloo::rendezvous::HashStore> store_;
  std::vector<std::unique_ptr<Rank>> ranks_;
};

Request Allreduce(const std::string& name, DataType dtype, int64_t n, ReduceOp op) {
  Request r;
  r.type = RequestType::kAllreduce;
  r.name = name;
  r.dtype = dtype;
  r.shape = {n};
  r.reduce_op = op;
  return r;
}

}  // namespace

TEST_F(EngineThreads, SumAndTruncatingIntegerAverageOverThreeRanks) {
  Start(3);
  for (int r = 0; r < 3; ++r) {
    float f[2] = {1.0f * (r + 1), 0.5f};
    ASSERT_TRUE(ranks_[r]->Submit(Allreduce("f", DataType::kFloat32, 2, ReduceOp::kSum), f,
                                  sizeof f).ok());
    int32_t i[2] = {r, -r};  // sums 3 and -3; average 1 and -1 (truncated)
    ASSERT_TRUE(ranks_[r]->Submit(Allreduce("i", DataType::kInt32, 2, ReduceOp::kAverage), i,
                                  sizeof i).ok());
  }
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(ranks_[r]->sink.Wait("f").ok());
    ASSERT_TRUE(ranks_[r]->sink.Wait("i").ok());
    auto* f = static_cast<float*>(ranks_[r]->sink.Entry("f").output);
    EXPECT_EQ(f[0], 6.0f);
    EXPECT_EQ(f[1], 1.5f);
    auto* i = static_cast<int32_t*>(ranks_[r]->sink.Entry("i").output);
    EXPECT_EQ(i[0], 1);
    EXPECT_EQ(i[1], -1);
  }
}

TEST_F(EngineThreads, LargeBuffersOnThreeRanksTakeTheRingAndSmallOnesTheDirectExchange) {
  Start(3);
  const int64_t big = 40000;  // 160 KB: past the direct-exchange threshold
  for (int r = 0; r < 3; ++r) {
    std::vector<float> v(static_cast<size_t>(big), static_cast<float>(r + 1));
    ASSERT_TRUE(ranks_[r]->Submit(Allreduce("big", DataType::kFloat32, big, ReduceOp::kMax), v.data(),
                                  v.size() * 4).ok());
    int64_t small[3] = {r + 1, 2, -(r + 1)};
    ASSERT_TRUE(ranks_[r]->Submit(Allreduce("small", DataType::kInt64, 3, ReduceOp::kProduct),
                                  small, sizeof small).ok());
  }
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(ranks_[r]->sink.Wait("big").ok());
    ASSERT_TRUE(ranks_[r]->sink.Wait("small").ok());
    auto* v = static_cast<float*>(ranks_[r]->sink.Entry("big").output);
    EXPECT_EQ(v[0], 3.0f);
    EXPECT_EQ(v[big - 1], 3.0f);
    auto* p = static_cast<int64_t*>(ranks_[r]->sink.Entry("small").output);
    EXPECT_EQ(p[0], 6);  // 1 * 2 * 3
    EXPECT_EQ(p[1], 8);
    EXPECT_EQ(p[2], -6);
  }
}

TEST_F(EngineThreads, ProcessSetRunsCollectivesAmongItsMembersOnly) {
  Start(3);
  Request add;
  add.type = RequestType::kAddProcessSet;
  add.name = "ps.add";
  add.splits = {0, 2};
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(ranks_[r]->Submit(add, nullptr, 0, false).ok());
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(ranks_[r]->sink.Wait("ps.add").ok());
    EXPECT_EQ(ranks_[r]->sink.Entry("ps.add").result_splits, std::vector<int64_t>{1});
  }
  for (int r : {0, 2}) {
    Request q = Allreduce("in.set", DataType::kInt32, 1, ReduceOp::kAverage);
    q.process_set = 1;
    int32_t v[1] = {r * 10};  // (0 + 20) / 2
    ASSERT_TRUE(ranks_[r]->Submit(q, v, sizeof v).ok());
    Request b;
    b.type = RequestType::kBroadcast;
    b.name = "bcast.set";
    b.dtype = DataType::kInt32;
    b.shape = {1};
    b.root = 2;  // a global rank
    b.process_set = 1;
    int32_t w[1] = {r + 100};
    ASSERT_TRUE(ranks_[r]->Submit(b, w, sizeof w).ok());
  }
  Request outsider = Allreduce("in.set", DataType::kInt32, 1, ReduceOp::kSum);
  outsider.process_set = 1;
  int32_t x[1] = {0};
  Status refused = ranks_[1]->Submit(outsider, x, sizeof x);
  EXPECT_EQ(refused.code, StatusCode::kMismatch);
  EXPECT_EQ(refused.message,
            "Rank 1 is not a member of process set 1; only its members may submit 'in.set'.");
  for (int r : {0, 2}) {
    ASSERT_TRUE(ranks_[r]->sink.Wait("in.set").ok());
    EXPECT_EQ(static_cast<int32_t*>(ranks_[r]->sink.Entry("in.set").output)[0], 10);
    ASSERT_TRUE(ranks_[r]->sink.Wait("bcast.set").ok());
    EXPECT_EQ(static_cast<int32_t*>(ranks_[r]->sink.Entry("bcast.set").output)[0], 102);
  }
  Request remove;
  remove.type = RequestType::kRemoveProcessSet;
  remove.name = "ps.remove";
  remove.root = 1;
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(ranks_[r]->Submit(remove, nullptr, 0, false).ok());
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(ranks_[r]->sink.Wait("ps.remove").ok());
  int32_t y[1] = {0};
  Request after = Allreduce("gone", DataType::kInt32, 1, ReduceOp::kSum);
  after.process_set = 1;
  EXPECT_EQ(ranks_[0]->Submit(after, y, sizeof y).message,
            "Process set 1 is not registered (it was never added, or has been removed).");
}

namespace {

// A one-rank transport whose data plane fails, as a peer dying mid-collective would.
class FailingTransport : public Transport {
 public:
  TransportCapabilities Capabilities() const override { return {"failing", {}}; }
  std::vector<std::vector<char>> GatherToRoot(const std::vector<char>& mine) override {
    return {mine};
  }
  std::vector<char> BroadcastFromRoot(std::vector<char> data) override { return data; }
  void Allreduce(void*, int64_t, DataType dtype, ReduceOp) override {
    // The cache's votes (bytes) pass; the data of a float allreduce does not.
    if (dtype != DataType::kUint8) throw TransportError("Connection closed by peer", 1);
  }
  void Allgatherv(const void*, void*, const std::vector<size_t>&, size_t) override {}
  void Broadcast(void*, size_t, int) override {}
  void Alltoallv(const void*, const std::vector<int64_t>&, void*, const std::vector<int64_t>&,
                 size_t) override {}
  void Barrier() override {}
};

}  // namespace

namespace {

// One owned float allreduce named "doomed" over `v` (a single element), ready to enqueue.
std::vector<EntryPtr> DoomedAllreduce(float* v) {
  auto e = std::make_unique<TensorEntry>();
  e->request = Allreduce("doomed", DataType::kFloat32, 1, ReduceOp::kSum);
  e->input = v;
  e->output = v;
  e->owner = std::make_shared<int>(0);
  std::vector<EntryPtr> entries;
  entries.push_back(std::move(e));
  return entries;
}

}  // namespace

TEST(EngineFailure, AnOpWhoseTransportCallFailsStillSettlesWithTheFailure) {
  RecordingSink sink;
  EngineConfig config;
  Engine engine(config, [] {
    Connection c;
    c.transport = std::make_unique<FailingTransport>();
    return c;
  }, &sink);
  float v[1] = {1};
  std::vector<EntryPtr> entries = DoomedAllreduce(v);
  ASSERT_TRUE(engine.Enqueue(std::move(entries)).ok());
  Status s = sink.Wait("doomed");
  EXPECT_EQ(s.code, StatusCode::kCommunication);
  EXPECT_EQ(s.failed_rank, 1);
  // The message names the collective the cycle was running.
  EXPECT_EQ(s.message.rfind("Communication failure on rank 0 during ALLREDUCE of 'doomed': "
                            "Connection closed by peer. Rank 1 failed first. ", 0),
            0u)
      << s.message;
}

namespace {

// Fails one allreduce on an engine of elastic generation 1 whose store holds `keys`; returns its
// status and, read just before the engine stops, both generations' failure_rank keys.
std::pair<Status, std::string> FailInGeneration1(const std::map<std::string, std::string>& keys) {
  auto* store = new MemoryStore();  // owned by the engine's connection from connect_() on
  for (const auto& [key, value] : keys) {
    store->Set(key, std::vector<char>(value.begin(), value.end()));
  }
  RecordingSink sink;
  EngineConfig config;
  config.timeout_ms = 200;  // also how long the engine waits for the launcher to name a rank
  config.failure_key_prefix = "kolo/elastic/gen1/";
  Engine engine(config, [store] {
    Connection c;
    c.store.reset(store);
    c.transport = std::make_unique<FailingTransport>();
    return c;
  }, &sink);
  float v[1] = {1};
  std::vector<EntryPtr> entries = DoomedAllreduce(v);
  EXPECT_TRUE(engine.Enqueue(std::move(entries)).ok());
  Status s = sink.Wait("doomed");
  std::string ranks;
  for (const char* key : {"kolo/failure_rank", "kolo/elastic/gen1/failure_rank"}) {
    auto value = store->Get(key, std::chrono::milliseconds(0));
    ranks += std::string(key) + "=";
    if (value) ranks.append(value->begin(), value->end());
    ranks += " ";
  }
  return {s, ranks};
}

}  // namespace

TEST(EngineFailure, NamesTheRankItsOwnGenerationRecordedNotAnEarlierGenerations) {
  auto [s, ranks] = FailInGeneration1({
      {"kolo/failure_rank", "3"},
      {"kolo/failure_reason", "exit code 3"},
      {"kolo/elastic/gen1/failure_rank", "2"},
      {"kolo/elastic/gen1/failure_reason", "killed by signal SIGKILL"},
  });
  EXPECT_EQ(s.failed_rank, 2);
  EXPECT_NE(s.message.find(". Rank 2 failed first (killed by signal SIGKILL). "), std::string::npos)
      << s.message;
  EXPECT_EQ(ranks, "kolo/failure_rank=3 kolo/elastic/gen1/failure_rank=2 ");
}

TEST(EngineFailure, TheCoordinatorRecordsTheRankItSawUnderItsOwnGenerationOnly) {
  auto [s, ranks] = FailInGeneration1({{"kolo/failure_rank", "3"}});
  EXPECT_EQ(s.failed_rank, 1);
  EXPECT_NE(s.message.find(". Rank 1 failed first. "), std::string::npos) << s.message;
  EXPECT_EQ(ranks, "kolo/failure_rank=3 kolo/elastic/gen1/failure_rank=1 ");
}

TEST_F(EngineThreads, MismatchFailsOnEveryRankAndTheNextOpWorks) {
  Start(2);
  double d[1] = {1.0};
  int64_t l[1] = {1};
  ASSERT_TRUE(ranks_[0]->Submit(Allreduce("m", DataType::kFloat64, 1, ReduceOp::kSum), d, 8).ok());
  ASSERT_TRUE(ranks_[1]->Submit(Allreduce("m", DataType::kInt64, 1, ReduceOp::kSum), l, 8).ok());
  for (int r = 0; r < 2; ++r) {
    Status s = ranks_[r]->sink.Wait("m");
    EXPECT_EQ(s.code, StatusCode::kMismatch);
    EXPECT_EQ(s.message,
              "Mismatched data types: One rank had type float64, but another rank had type "
              "int64.");
  }
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(ranks_[r]->Submit(Allreduce("ok", DataType::kInt64, 1, ReduceOp::kMax), l, 8).ok());
  }
  for (int r = 0; r < 2; ++r) EXPECT_TRUE(ranks_[r]->sink.Wait("ok").ok());
}

TEST_F(EngineThreads, DuplicateInFlightNameFailsAtOnce) {
  Start(2);
  float f[1] = {1};
  ASSERT_TRUE(ranks_[0]->Submit(Allreduce("d", DataType::kFloat32, 1, ReduceOp::kSum), f, 4).ok());
  Status s = ranks_[0]->Submit(Allreduce("d", DataType::kFloat32, 1, ReduceOp::kSum), f, 4);
  EXPECT_EQ(s.code, StatusCode::kDuplicateName);
  ASSERT_TRUE(ranks_[1]->Submit(Allreduce("d", DataType::kFloat32, 1, ReduceOp::kSum), f, 4).ok());
  EXPECT_TRUE(ranks_[0]->sink.Wait("d").ok());
}

TEST_F(EngineThreads, AllgatherWithUnevenFirstDimensions) {
  Start(3);
  for (int r = 0; r < 3; ++r) {
    std::vector<int32_t> rows(static_cast<size_t>(r) * 2, r);
    Request q;
    q.type = RequestType::kAllgather;
    q.name = "g";
    q.dtype = DataType::kInt32;
    q.shape = {r, 2};
    ASSERT_TRUE(ranks_[r]->Submit(q, rows.data(), rows.size() * 4, false).ok());
  }
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(ranks_[r]->sink.Wait("g").ok());
    TensorEntry& e = ranks_[r]->sink.Entry("g");
    EXPECT_EQ(e.result_splits, (std::vector<int64_t>{0, 1, 2}));
    std::vector<int32_t> got(e.result.size() / 4);
    std::memcpy(got.data(), e.result.data(), e.result.size());
    EXPECT_EQ(got, (std::vector<int32_t>{1, 1, 2, 2, 2, 2}));
  }
}

}  // namespace kolo

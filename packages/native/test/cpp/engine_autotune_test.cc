// Whole engines (one per thread, shared memory) with the autotuner on: rank 0's fusion threshold
// reaches every rank in the same cycle, so every rank fuses the same responses (the transports see
// the same sequence of allreduce sizes), results stay exact, and all ranks end on the same
// parameters. Runs with the response cache (parameters in the vote) and without it (in the
// coordinator's response list).
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>

#include "engine/engine.h"
#include "forwarding_transport.h"
#include "memory_store.h"
#include "transport/shm_transport.h"

namespace kolo {
namespace {

constexpr int64_t kTensorFloats = 256 * 1024;  // 1 MiB
constexpr int kTensors = 6;

// Forwards to a real transport and records the element count of every float allreduce.
class RecordingTransport : public ForwardingTransport {
 public:
  RecordingTransport(std::unique_ptr<Transport> inner, std::vector<int64_t>* sizes)
      : ForwardingTransport(std::move(inner)), sizes_(sizes) {}
  void Allreduce(void* d, int64_t n, DataType t, ReduceOp op) override {
    if (t == DataType::kFloat32) sizes_->push_back(n);
    ForwardingTransport::Allreduce(d, n, t, op);
  }

 private:
  std::vector<int64_t>* sizes_;
};

class CountingSink : public CompletionSink {
 public:
  void Finish(EntryPtr entry, const Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status.ok()) failure_ = status.message;
    done_.push_back(std::move(entry));
    cv_.notify_all();
  }
  void EndOfCycle() override {}
  void Started(const Status&) override {}
  void Stopped(const Status&) override {}
  std::vector<EntryPtr> Wait(size_t n, std::string* failure) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_.size() >= n; });
    *failure = failure_;
    return std::exchange(done_, {});
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<EntryPtr> done_;
  std::string failure_;
};

class EngineAutotune : public ::testing::TestWithParam<bool> {
 protected:
  void Start() {
    for (int r = 0; r < 2; ++r) {
      EngineConfig config;
      config.rank = r;
      config.size = 2;
      config.timeout_ms = 10000;
      config.response_cache_capacity = GetParam() ? 1024 : 0;
      config.autotune.enabled = true;
      config.autotune.warmup_samples = 0;
      config.autotune.steps_per_sample = 1;
      config.autotune.max_samples = 6;
      Connector connect = [this, r]() {
        ShmOptions o;
        o.rank = r;
        o.size = 2;
        o.timeout = std::chrono::milliseconds(10000);
        o.store_key = "autotune-test/shm";
        o.name_prefix = GetParam() ? "engautotunec" : "engautotunef";
        Connection c;
        c.transport = std::make_unique<RecordingTransport>(std::make_unique<ShmTransport>(store_, o),
                                                           &sizes_[r]);
        return c;
      };
      engines_[r] = std::make_unique<Engine>(config, connect, &sinks_[r]);
    }
  }
  void TearDown() override {
    for (auto& e : engines_) e->RequestShutdown();
    for (auto& e : engines_) e->Join();
  }
  // Every rank allreduces kTensors tensors of 1 MiB; checks the sums.
  void Step(int step) {
    for (int r = 0; r < 2; ++r) {
      std::vector<EntryPtr> entries;
      for (int k = 0; k < kTensors; ++k) {
        auto& buf = buffers_[r][k];
        buf.assign(kTensorFloats, static_cast<float>(r + k + step));
        auto e = std::make_unique<TensorEntry>();
        e->request.type = RequestType::kAllreduce;
        e->request.name = "t" + std::to_string(k);
        e->request.shape = {kTensorFloats};
        e->input = buf.data();
        e->output = buf.data();
        e->owner = std::make_shared<int>(k);
        entries.push_back(std::move(e));
      }
      ASSERT_TRUE(engines_[r]->Enqueue(std::move(entries)).ok());
    }
    for (int r = 0; r < 2; ++r) {
      std::string failure;
      std::vector<EntryPtr> done = sinks_[r].Wait(kTensors, &failure);
      ASSERT_EQ(failure, "") << "rank " << r << " step " << step;
      for (const EntryPtr& e : done) {
        const int k = std::stoi(e->request.name.substr(1));
        const float* out = static_cast<const float*>(e->output);
        const float want = static_cast<float>(2 * (k + step) + 1);
        ASSERT_EQ(out[0], want);
        ASSERT_EQ(out[kTensorFloats - 1], want);
      }
    }
  }

  MemoryStore store_;
  CountingSink sinks_[2];
  std::unique_ptr<Engine> engines_[2];
  std::vector<int64_t> sizes_[2];
  std::vector<float> buffers_[2][kTensors];
};

TEST_P(EngineAutotune, EveryRankFusesWithRankZerosChoiceFromTheSameCycle) {
  Start();
  int step = 0;
  for (; step < 200 && engines_[0]->Tuning().searching; ++step) {
    Step(step);
    if (HasFatalFailure()) return;
  }
  ASSERT_FALSE(engines_[0]->Tuning().searching) << "still searching after " << step << " steps";
  Step(step);  // a cycle after rank 0 finished, so the others have heard it
  const TuningState a = engines_[0]->Tuning();
  const TuningState b = engines_[1]->Tuning();
  EXPECT_FALSE(b.searching);
  EXPECT_EQ(a.params, b.params);
  TearDown();
  // The same fused allreduces on both ranks, in the same order; fusion changed along the way
  // (everything in one buffer under 128 MiB, four and two under 4 MiB).
  EXPECT_EQ(sizes_[0], sizes_[1]);
  const auto has = [&](int64_t n) {
    return std::find(sizes_[0].begin(), sizes_[0].end(), n) != sizes_[0].end();
  };
  EXPECT_TRUE(has(kTensors * kTensorFloats));
  EXPECT_TRUE(has(4 * kTensorFloats));
  EXPECT_TRUE(has(2 * kTensorFloats));
}

INSTANTIATE_TEST_SUITE_P(CacheOnAndOff, EngineAutotune, ::testing::Bool());

}  // namespace
}  // namespace kolo

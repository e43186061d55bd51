// What the engine-level cache tests share: whole engines (one per thread) over the shared-memory
// transport, a transport that counts gathers, allreduce, broadcast, allgather and in-place
// rounds, and a sink that hands each finished entry to the test thread.
#pragma once

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
      config.response_cache_capacity = cache_capacity_;
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
  // Two ranks with a 2 ms caller spin and no idle cycles (none may hold the cycle lock or wait in
  // a cycle), connected.
  void StartForLatePeers() {
    spin_us_ = 2000;
    idle_wake_ms_ = 600'000;
    Start(2);
    for (int r = 0; r < 2; ++r) ASSERT_TRUE(Submit(r, Allreduce("up", {1}), {1.0f}).ok());
    for (int r = 0; r < 2; ++r) ASSERT_TRUE(sinks_[r]->Wait("up").second.ok());
  }
  // Rank 0 queues `name` (4 floats of 1) and calls TryDriveOnce(calls) while rank 1 stays away:
  // the call spins its whole spin `us` once and returns false, leaving the cycle to its
  // background thread, and where it began that cycle, a second try leaves it alone at once. Rank 1 then queues its 2s, and
  // both get the exact sum. (The background thread may still be finishing the previous cycle,
  // holding the cycle lock: then the call returns at once having begun nothing; it is tried
  // again.)
  void LatePeerRound(const std::string& name, size_t calls, int64_t us) {
    ASSERT_TRUE(Submit(0, Allreduce(name, {4}), std::vector<float>(4, 1.0f), false).ok());
    const auto spin = std::chrono::microseconds(us);
    bool spun = false;
    for (int attempt = 0; attempt < 100 && !spun; ++attempt) {
      const auto t0 = std::chrono::steady_clock::now();
      EXPECT_FALSE(engines_[0]->TryDriveOnce(calls));
      const auto took = std::chrono::steady_clock::now() - t0;
      ASSERT_LT(took, spin + std::chrono::seconds(1)) << "TryDriveOnce waited for the late peer itself";
      spun = took >= spin;
      if (!spun) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(spun) << "TryDriveOnce of " << calls << " calls never waited " << us << " µs for the late peer";
    if (cache_capacity_ != 0) {  // the cycle has begun (with the cache off, nothing has)
      const auto t0 = std::chrono::steady_clock::now();
      EXPECT_FALSE(engines_[0]->TryDriveOnce(calls));
      EXPECT_LT(std::chrono::steady_clock::now() - t0, spin);
    }
    engines_[0]->Wake();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(Submit(1, Allreduce(name, {4}), std::vector<float>(4, 2.0f)).ok());
    ExpectAll(name, 4, 3.0f);
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

  // Submits one request on `rank` whose data lives in `buffers_`, in place.
  Status Submit(int rank, Request r, std::vector<float> data, bool wake = true) {
    auto& buf = buffers_[{rank, r.name}];
    buf = std::move(data);
    return SubmitEntry(rank, std::move(r), buf.data(), buf.data(), 0, wake);
  }

  // Submits one request on `rank` reading `input` and writing `output` as given (an allgather's
  // output is `output_bytes` long; null means none).
  Status SubmitEntry(int rank, Request r, const void* input, void* output, size_t output_bytes = 0,
                     bool wake = true) {
    std::vector<EntryPtr> v;
    v.push_back(NewEntry(std::move(r), input, output, output_bytes));
    return engines_[rank]->Enqueue(std::move(v), wake);
  }

  // An entry of its own call (its own owner) reading `input` and writing `output`.
  static EntryPtr NewEntry(Request r, const void* input, void* output, size_t output_bytes = 0) {
    auto e = std::make_unique<TensorEntry>();
    e->request = std::move(r);
    e->input = input;
    e->output = output;
    e->output_bytes = output_bytes;
    e->owner = std::make_shared<int>(0);
    return e;
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
  int64_t cache_capacity_ = EngineConfig().response_cache_capacity;
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

}  // namespace
}  // namespace kolo

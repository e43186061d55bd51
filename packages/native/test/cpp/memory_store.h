// An in-process KeyValueStore for tests whose ranks are threads (or forked children that only
// read keys set before the fork).
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>

#include "engine/kv_store.h"

namespace kolo {

class MemoryStore : public KeyValueStore {
 public:
  void Set(const std::string& key, const std::vector<char>& value) override {
    std::lock_guard<std::mutex> lock(mu_);
    values_[key] = value;
    cv_.notify_all();
  }
  std::optional<std::vector<char>> Get(const std::string& key,
                                       std::chrono::milliseconds timeout) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return values_.count(key) != 0; })) return std::nullopt;
    return values_[key];
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<char>> values_;
};

}  // namespace kolo

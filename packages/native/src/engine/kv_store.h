// The engine's view of the rendezvous store: enough to publish and look up failure records.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kolo {

class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  virtual void Set(const std::string& key, const std::vector<char>& value) = 0;
  // Empty when the key does not appear within `timeout`.
  virtual std::optional<std::vector<char>> Get(const std::string& key,
                                               std::chrono::milliseconds timeout) = 0;
  // False once the store is known to be gone (its host exited). Must not block.
  virtual bool Alive() { return true; }
};

// Keys, after EngineConfig::failure_key_prefix, under which the launcher (or the coordinator, when
// it saw a peer vanish) records the rank that failed first. The prefix names the elastic
// generation, so a rank named in one generation is never read in the next. Values are plain
// text: a decimal rank, and a short reason.
inline constexpr const char* kFailureRankKey = "failure_rank";
inline constexpr const char* kFailureReasonKey = "failure_reason";

}  // namespace kolo

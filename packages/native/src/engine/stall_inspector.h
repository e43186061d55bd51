// Horovod's stall inspector: on the coordinator, names the ranks that have not submitted
// tensors other ranks are waiting on, and optionally ends the job after a longer stall.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kolo {

struct StallConfig {
  int64_t check_ms = 60000;  // 0 disables the inspector
  int64_t shutdown_ms = 0;   // 0 never shuts down
};

struct StallItem {
  std::string name;
  int64_t age_ms = 0;
  std::vector<int> missing_ranks;
};

struct StallVerdict {
  std::string warning;         // empty: nothing to report this cycle
  bool shutdown = false;
  std::vector<int> stalled_ranks;  // ranks past the shutdown time, when shutting down
};

class StallInspector {
 public:
  explicit StallInspector(StallConfig config);
  StallVerdict Inspect(const std::vector<StallItem>& items, int64_t now_ms);

 private:
  StallConfig config_;
  int64_t last_warning_ms_ = -1;
  bool warned_config_ = false;
};

}  // namespace kolo

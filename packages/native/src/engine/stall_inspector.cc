#include "engine/stall_inspector.h"

#include <map>
#include <set>
#include <sstream>

namespace kolo {

StallInspector::StallInspector(StallConfig config) : config_(config) {}

StallVerdict StallInspector::Inspect(const std::vector<StallItem>& items, int64_t now_ms) {
  StallVerdict verdict;
  if (config_.check_ms <= 0) return verdict;
  const bool may_shut_down = config_.shutdown_ms > 0 && config_.shutdown_ms >= config_.check_ms;
  if (config_.shutdown_ms > 0 && !may_shut_down && !warned_config_) {
    warned_config_ = true;
    verdict.warning =
        "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS is less than HOROVOD_STALL_CHECK_TIME_SECONDS, will "
        "not shutdown.";
    return verdict;
  }
  if (last_warning_ms_ >= 0 && now_ms - last_warning_ms_ < config_.check_ms) return verdict;

  std::map<int, std::vector<std::string>> missing;  // rank -> stalled names it lacks
  std::set<int> stalled;
  for (const StallItem& item : items) {
    if (item.age_ms < config_.check_ms) continue;
    for (int r : item.missing_ranks) {
      missing[r].push_back(item.name);
      if (may_shut_down && item.age_ms >= config_.shutdown_ms) stalled.insert(r);
    }
  }
  if (missing.empty()) return verdict;
  last_warning_ms_ = now_ms;
  std::ostringstream out;
  out << "One or more tensors were submitted to be reduced, gathered or broadcasted by subset of "
         "ranks and are waiting for remainder of ranks for more than "
      << static_cast<double>(config_.check_ms) / 1000.0
      << " seconds. This may indicate that different ranks are trying to submit different "
         "tensors or that only subset of ranks is submitting tensors, which will cause deadlock. "
         "\nMissing ranks:";
  for (const auto& [rank, names] : missing) {
    out << "\n" << rank << (stalled.count(rank) ? "!" : "") << ": [";
    for (size_t i = 0; i < names.size() && i < 6; ++i) out << (i ? ", " : "") << names[i];
    out << (names.size() > 6 ? " ..." : "") << "]";
  }
  if (!stalled.empty()) {
    out << "\nOne or more rank (marked by \"!\") is stalled for longer than "
        << static_cast<double>(config_.shutdown_ms) / 1000.0 << " seconds. Will shutdown.";
    verdict.shutdown = true;
    verdict.stalled_ranks.assign(stalled.begin(), stalled.end());
  }
  verdict.warning = out.str();
  return verdict;
}

}  // namespace kolo

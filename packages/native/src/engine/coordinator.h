// The coordinator's negotiation: collects every rank's requests by tensor name, validates that
// the ranks agree, and produces one ordered, fused response list that every rank executes.
// Runs on rank 0 only; pure logic (no transport), so it is unit-tested directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/message.h"
#include "engine/stall_inspector.h"
#include "engine/timeline.h"

namespace kolo {

class Coordinator {
 public:
  Coordinator(int size, int64_t fusion_threshold_bytes, StallConfig stall = {});

  // `lists[r]` holds the requests rank r submitted this cycle; `now_ms` is a monotonic clock
  // for stall checks. Returns this cycle's responses.
  ResponseList Compute(const std::vector<RequestList>& lists, int64_t now_ms = 0);

  // Stall warnings produced by the last Compute, for the coordinator's log (then cleared).
  std::string TakeWarning();
  // Negotiation events go to this timeline while it is open (owned by the engine).
  void SetTimeline(Timeline* timeline) { timeline_ = timeline; }
  // The autotuner changes the threshold between cycles.
  void SetFusionThreshold(int64_t bytes) { fusion_threshold_bytes_ = bytes; }

  // Merges adjacent-compatible allreduces (same dtype, op, scales and set) into fused responses
  // of at most `threshold` bytes; 0 disables fusion.
  static std::vector<Response> FuseResponses(std::vector<Response> responses, int64_t threshold);

  // Names some ranks submitted that are still waiting for others, for stall reports.
  std::vector<std::string> PendingNames() const;
  bool HasPending() const { return !table_.empty(); }

 private:
  struct Pending {
    std::vector<Request> by_rank;  // indexed by rank; valid where present[r]
    std::vector<bool> present;
    int64_t first_seen_ms = 0;
    int32_t process_set = 0;
  };

  void Add(const Request& request, int64_t now_ms);
  void Emitted(const std::string& name);
  void InspectStalls(ResponseList& out, int64_t now_ms);
  bool IsReady(const Pending& pending) const;
  bool GroupReady(const std::string& group, int32_t group_size) const;
  const std::vector<int>& MembersOf(const Pending& pending) const;
  Response Construct(const std::string& name, const Pending& pending);
  Response ConstructSetChange(const std::string& name, const std::vector<const Request*>& reqs);

  int size_;
  int64_t fusion_threshold_bytes_;
  std::map<std::string, Pending> table_;
  std::vector<std::string> arrival_order_;
  std::vector<bool> joined_;
  int joined_count_ = 0;
  int last_joined_rank_ = -1;
  std::map<int32_t, std::vector<int>> sets_;  // process set id -> global ranks; 0 = everyone
  int32_t next_set_id_ = 1;
  StallInspector stall_;
  std::string warning_;
  Timeline* timeline_ = nullptr;
};

}  // namespace kolo

// The coordinator's negotiation: collects every rank's requests by tensor name, validates that
// the ranks agree, and produces one ordered, fused response list that every rank executes.
// Runs on rank 0 only; pure logic (no transport), so it is unit-tested directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/message.h"

namespace kolo {

class Coordinator {
 public:
  Coordinator(int size, int64_t fusion_threshold_bytes);

  // `lists[r]` holds the requests rank r submitted this cycle. Returns this cycle's responses.
  ResponseList Compute(const std::vector<RequestList>& lists);

  // Names some ranks submitted that are still waiting for others, for stall reports.
  std::vector<std::string> PendingNames() const;

 private:
  struct Pending {
    std::vector<Request> by_rank;  // indexed by rank; valid where present[r]
    std::vector<bool> present;
  };

  void Add(const Request& request);
  bool IsReady(const Pending& pending) const;
  bool GroupReady(const std::string& group, int32_t group_size) const;
  Response Construct(const std::string& name, const Pending& pending) const;
  std::vector<Response> Fuse(std::vector<Response> responses) const;

  int size_;
  int64_t fusion_threshold_bytes_;
  std::map<std::string, Pending> table_;
  std::vector<std::string> arrival_order_;
  std::vector<bool> joined_;
  int joined_count_ = 0;
  int last_joined_rank_ = -1;
};

}  // namespace kolo

// Process-set registration on the coordinator: every rank asks for the same set (or removal),
// the coordinator assigns the id, and the response tells every rank.
#include <sstream>

#include "engine/coordinator.h"

namespace kolo {
namespace {

std::string RankList(const std::vector<int64_t>& ranks) { return ShapeString(ranks); }

Response SetError(const std::string& name, const std::string& message) {
  Response r;
  r.type = RequestType::kError;
  r.names = {name};
  r.error_code = StatusCode::kMismatch;
  r.error_message = message;
  return r;
}

}  // namespace

Response Coordinator::ConstructSetChange(const std::string& name,
                                         const std::vector<const Request*>& reqs) {
  const Request& a = *reqs.front();
  Response r;
  r.type = a.type;
  r.names = {name};
  if (a.type == RequestType::kRemoveProcessSet) {
    for (const Request* q : reqs) {
      if (q->root != a.root) {
        std::ostringstream msg;
        msg << "Mismatched process set removal: one rank removed process set " << a.root
            << ", but another rank removed process set " << q->root << ".";
        return SetError(name, msg.str());
      }
    }
    if (a.root == 0 || sets_.count(a.root) == 0) {
      return SetError(name, "Process set " + std::to_string(a.root) +
                                " is not registered (the global set 0 cannot be removed).");
    }
    sets_.erase(a.root);
    r.process_set = a.root;
    return r;
  }
  for (const Request* q : reqs) {
    if (q->splits != a.splits) {
      return SetError(name, "Mismatched process set ranks: one rank asked for " +
                                RankList(a.splits) + ", but another rank asked for " +
                                RankList(q->splits) + ".");
    }
  }
  std::vector<int> ranks(a.splits.begin(), a.splits.end());
  for (const auto& [id, members] : sets_) {
    if (members == ranks) {
      return SetError(name, "A process set with ranks " + RankList(a.splits) +
                                " already exists (id " + std::to_string(id) + ").");
    }
  }
  r.process_set = next_set_id_++;
  r.splits = a.splits;
  sets_[r.process_set] = ranks;
  return r;
}

}  // namespace kolo

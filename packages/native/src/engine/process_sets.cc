// Process sets on every rank: membership checks when a request is queued, and creating or
// dropping a set's transport when the coordinator's response says so.
#include <algorithm>

#include "engine/engine.h"

namespace kolo {

Status Engine::CheckMembership(const std::vector<EntryPtr>& entries) {
  // Calls over every rank (nearly all) need no look at the registered sets.
  if (std::all_of(entries.begin(), entries.end(),
                  [](const EntryPtr& e) { return e->request.process_set == 0; })) {
    return Status::Ok();
  }
  std::lock_guard<std::mutex> lock(sets_mu_);
  for (const EntryPtr& e : entries) {
    const Request& r = e->request;
    if (r.process_set == 0 || r.type == RequestType::kAddProcessSet ||
        r.type == RequestType::kRemoveProcessSet) {
      continue;
    }
    auto it = set_members_.find(r.process_set);
    if (it == set_members_.end()) {
      return Status::Error(StatusCode::kMismatch,
                           "Process set " + std::to_string(r.process_set) +
                               " is not registered (it was never added, or has been removed).");
    }
    const std::vector<int>& members = it->second;
    auto member = [&](int rank) {
      return std::find(members.begin(), members.end(), rank) != members.end();
    };
    if (!member(config_.rank)) {
      return Status::Error(StatusCode::kMismatch,
                           "Rank " + std::to_string(config_.rank) +
                               " is not a member of process set " +
                               std::to_string(r.process_set) + "; only its members may submit '" +
                               r.name + "'.");
    }
    if (r.type == RequestType::kBroadcast && !member(r.root)) {
      return Status::Error(StatusCode::kMismatch,
                           "Broadcast root " + std::to_string(r.root) +
                               " is not a member of process set " +
                               std::to_string(r.process_set) + ".");
    }
  }
  return Status::Ok();
}

void Engine::ChangeProcessSets(const Response& response) {
  const int32_t id = response.process_set;
  if (response.type == RequestType::kAddProcessSet) {
    Group g;
    g.ranks.assign(response.splits.begin(), response.splits.end());
    auto me = std::find(g.ranks.begin(), g.ranks.end(), config_.rank);
    if (me != g.ranks.end()) {
      g.rank = static_cast<int>(me - g.ranks.begin());
      current_op_.Set("connecting process set", std::to_string(id), /*quoted=*/false);
      g.owned = connection_.connect_subset("ps" + std::to_string(id), g.ranks, g.rank);
      g.transport = g.owned.get();
    }
    {
      std::lock_guard<std::mutex> lock(sets_mu_);
      set_members_[id] = g.ranks;
    }
    groups_[id] = std::move(g);
  } else {
    auto it = groups_.find(id);
    if (it != groups_.end() && it->second.rank >= 0) {
      // Let every member finish reading before the connections close.
      it->second.transport->Barrier();
    }
    groups_.erase(id);
    std::lock_guard<std::mutex> lock(sets_mu_);
    set_members_.erase(id);
  }
  for (const std::string& name : response.names) {
    EntryPtr e = queue_.Take(name);
    if (!e) continue;
    e->result_splits = {id};
    sink_->Finish(std::move(e), Status::Ok());
  }
}

}  // namespace kolo

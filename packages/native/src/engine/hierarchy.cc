// Hierarchical allreduce (Horovod's HOROVOD_HIERARCHICAL_ALLREDUCE): traffic between hosts is
// one tensor per host instead of one per rank.
#include <algorithm>
#include <cstring>

#include "engine/engine.h"

namespace kolo {

void Engine::ConnectHierarchy() {
  // Everyone learns everyone's (local rank, cross rank) to build the same groups.
  const int size = config_.size;
  std::vector<int32_t> mine = {config_.local_rank, config_.cross_rank};
  std::vector<int32_t> all(static_cast<size_t>(size) * 2);
  connection_.transport->Allgatherv(mine.data(), all.data(),
                                    std::vector<size_t>(static_cast<size_t>(size), 2),
                                    sizeof(int32_t));
  Hierarchy h;
  for (int r = 0; r < size; ++r) {
    const int local = all[2 * r], cross = all[2 * r + 1];
    if (cross == config_.cross_rank) h.local.ranks.push_back(r);
    if (local == 0) h.cross.ranks.push_back(r);
  }
  auto position = [&](const std::vector<int>& ranks) {
    auto it = std::find(ranks.begin(), ranks.end(), config_.rank);
    return it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
  };
  h.local.rank = position(h.local.ranks);
  auto& connect_local =
      connection_.connect_local ? connection_.connect_local : connection_.connect_subset;
  h.local.owned = connect_local("local" + std::to_string(config_.cross_rank),
                                             h.local.ranks, h.local.rank);
  h.local.transport = h.local.owned.get();
  h.cross.rank = position(h.cross.ranks);
  if (h.cross.rank >= 0) {
    h.cross.owned = connection_.connect_subset("cross", h.cross.ranks, h.cross.rank);
    h.cross.transport = h.cross.owned.get();
  }
  h.enabled = true;
  hierarchy_ = std::move(h);
}

bool Engine::Hierarchical(const Group& g) const {
  return hierarchy_.enabled && &g == &groups_.at(0);
}

const char* Engine::AllreduceActivity(const Group& g) const {
  return Hierarchical(g) ? "HIERARCHICAL_ALLREDUCE" : "GLOO_ALLREDUCE";
}

void Engine::GroupAllreduce(Group& g, void* data, int64_t count, DataType dtype, ReduceOp op) {
  if (!Hierarchical(g)) {
    g.transport->Allreduce(data, count, dtype, op);
    return;
  }
  hierarchy_.local.transport->Allreduce(data, count, dtype, op);
  if (hierarchy_.cross.transport != nullptr) {
    hierarchy_.cross.transport->Allreduce(data, count, dtype, op);
  }
  const size_t bytes = static_cast<size_t>(count) * DataTypeSize(dtype);
  hierarchy_.local.transport->Broadcast(data, bytes, 0);
}

// out = allreduce(in) * postscale. Without hierarchy the transport does it in one pass (the shm
// transport reads `in` where it lies and scales only its share); with it, in place as above.
void Engine::GroupAllreduceInto(Group& g, const void* in, void* out, int64_t count, DataType dtype,
                                ReduceOp op, double postscale) {
  if (!Hierarchical(g)) {
    g.transport->AllreduceInto(in, out, count, dtype, op, postscale);
    return;
  }
  if (out != in) CopyBytes(out, in, static_cast<size_t>(count) * DataTypeSize(dtype));
  GroupAllreduce(g, out, count, dtype, op);
  ScaleBuffer(out, count, dtype, postscale);
}

}  // namespace kolo

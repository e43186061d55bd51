#include "engine/coordinator.h"

#include <algorithm>
#include <sstream>

namespace kolo {
namespace {

Response ErrorResponse(const std::string& name, StatusCode code, const std::string& message) {
  Response r;
  r.type = RequestType::kError;
  r.names = {name};
  r.error_code = code;
  r.error_message = message;
  return r;
}

const char* JoinUnsupportedMessage(RequestType type) {
  switch (type) {
    case RequestType::kAllgather: return "Allgather is not supported with Join at this time.";
    case RequestType::kAlltoall: return "Alltoall is not supported with Join at this time.";
    case RequestType::kBroadcast: return "Broadcast is not supported with Join at this time.";
    case RequestType::kReducescatter:
      return "Reducescatter is not supported with Join at this time.";
    default: return nullptr;
  }
}

bool NeedsIdenticalShape(RequestType type) {
  return type == RequestType::kAllreduce || type == RequestType::kBroadcast ||
         type == RequestType::kReducescatter;
}

bool GathersFirstDim(RequestType type) {
  return type == RequestType::kAllgather || type == RequestType::kAlltoall;
}

// Two ranks sent a packed group (a grouped allreduce's arrays as one request) that differ.
std::string PartsMismatch(const Request& a, const Request& b) {
  const auto none = std::vector<std::vector<int64_t>>{};
  const auto pa = PartShapes(a.parts).value_or(none);
  const auto pb = PartShapes(b.parts).value_or(none);
  std::ostringstream msg;
  msg << "Mismatched " << RequestTypeName(a.type) << " tensor shapes: ";
  if (pa.size() != pb.size()) {
    msg << "One rank sent a group of " << pa.size() << " tensors, but another rank sent a group of "
        << pb.size() << " tensors.";
    return msg.str();
  }
  size_t i = 0;
  while (i + 1 < pa.size() && pa[i] == pb[i]) ++i;
  msg << "One rank sent tensor " << i + 1 << " of " << pa.size() << " in the group with shape "
      << (i < pa.size() ? ShapeString(pa[i]) : "[]") << ", but another rank sent it with shape "
      << (i < pb.size() ? ShapeString(pb[i]) : "[]") << ".";
  return msg.str();
}

// Checks that need every present request compared against the first one; returns "" if fine.
std::string FirstMismatch(const std::vector<const Request*>& reqs) {
  const Request& a = *reqs.front();
  std::ostringstream msg;
  for (const Request* bp : reqs) {
    const Request& b = *bp;
    if (b.dtype != a.dtype) {
      msg << "Mismatched data types: One rank had type " << DataTypeName(a.dtype)
          << ", but another rank had type " << DataTypeName(b.dtype) << ".";
      return msg.str();
    }
  }
  for (const Request* bp : reqs) {
    if (bp->type != a.type) {
      msg << "Mismatched operations: One rank did an " << RequestTypeName(a.type)
          << ", but another rank did an " << RequestTypeName(bp->type) << ".";
      return msg.str();
    }
  }
  for (const Request* bp : reqs) {
    if (bp->parts != a.parts) return PartsMismatch(a, *bp);
  }
  if (NeedsIdenticalShape(a.type)) {
    for (const Request* bp : reqs) {
      if (bp->shape != a.shape) {
        msg << "Mismatched " << RequestTypeName(a.type)
            << " tensor shapes: One rank sent a tensor of shape " << ShapeString(a.shape)
            << ", but another rank sent a tensor of shape " << ShapeString(bp->shape) << ".";
        return msg.str();
      }
    }
  }
  if (GathersFirstDim(a.type) || a.type == RequestType::kReducescatter) {
    if (a.shape.empty()) {
      msg << "Process-set rank zero tried to " << RequestTypeName(a.type)
          << " a rank-zero tensor.";
      return msg.str();
    }
  }
  if (GathersFirstDim(a.type)) {
    for (const Request* bp : reqs) {
      if (bp->shape.size() != a.shape.size()) {
        msg << "Mismatched " << RequestTypeName(a.type)
            << " tensor shapes: One rank sent a tensor of rank " << a.shape.size()
            << ", but another rank sent a tensor of rank " << bp->shape.size() << ".";
        return msg.str();
      }
      for (size_t d = 1; d < a.shape.size(); ++d) {
        if (bp->shape[d] != a.shape[d]) {
          msg << "Mismatched " << RequestTypeName(a.type)
              << " tensor shapes: One rank sent a tensor with dimension " << d << " equal to "
              << a.shape[d] << ", but another rank sent a tensor with dimension " << d
              << " equal to " << bp->shape[d] << ".";
          return msg.str();
        }
      }
    }
  }
  if (a.type == RequestType::kBroadcast) {
    for (const Request* bp : reqs) {
      if (bp->root != a.root) {
        msg << "Mismatched BROADCAST root ranks: One rank specified root rank " << a.root
            << ", but another rank specified root rank " << bp->root << ".";
        return msg.str();
      }
    }
  }
  if (a.type == RequestType::kAllreduce || a.type == RequestType::kReducescatter) {
    for (const Request* bp : reqs) {
      if (bp->prescale != a.prescale || bp->postscale != a.postscale) {
        msg << "Mismatched prescale and/or postscale factors: One rank sent factors ("
            << a.prescale << ", " << a.postscale << "), but another rank sent factors ("
            << bp->prescale << ", " << bp->postscale << ").";
        return msg.str();
      }
    }
    for (const Request* bp : reqs) {
      if (bp->reduce_op != a.reduce_op) {
        msg << "Mismatched reduction operation: One rank sent reduction op "
            << static_cast<int>(a.reduce_op) << ", but another rank sent reduction op "
            << static_cast<int>(bp->reduce_op) << ".";
        return msg.str();
      }
    }
  }
  return "";
}

}  // namespace

Coordinator::Coordinator(int size, int64_t fusion_threshold_bytes, StallConfig stall)
    : size_(size),
      fusion_threshold_bytes_(fusion_threshold_bytes),
      joined_(size, false),
      stall_(stall) {
  std::vector<int> everyone(size);
  for (int r = 0; r < size; ++r) everyone[r] = r;
  sets_[0] = everyone;
}

const std::vector<int>& Coordinator::MembersOf(const Pending& pending) const {
  static const std::vector<int> kNone;
  auto it = sets_.find(pending.process_set);
  return it == sets_.end() ? kNone : it->second;
}

void Coordinator::Add(const Request& request, int64_t now_ms) {
  auto it = table_.find(request.name);
  if (it == table_.end()) {
    Pending pending;
    pending.by_rank.resize(size_);
    pending.present.assign(size_, false);
    pending.first_seen_ms = now_ms;
    pending.process_set = request.process_set;
    it = table_.emplace(request.name, std::move(pending)).first;
    arrival_order_.push_back(request.name);
    if (timeline_ != nullptr) timeline_->NegotiateStart(request.name, request.type);
  }
  it->second.by_rank[request.rank] = request;
  it->second.present[request.rank] = true;
  if (timeline_ != nullptr) timeline_->NegotiateRankReady(request.name, request.rank);
}

void Coordinator::Emitted(const std::string& name) {
  if (timeline_ != nullptr) timeline_->NegotiateEnd(name);
}

std::string Coordinator::TakeWarning() {
  std::string w;
  w.swap(warning_);
  return w;
}

void Coordinator::InspectStalls(ResponseList& out, int64_t now_ms) {
  std::vector<StallItem> items;
  for (const std::string& name : arrival_order_) {
    const Pending& pending = table_.at(name);
    StallItem item{name, now_ms - pending.first_seen_ms, {}};
    for (int r : MembersOf(pending)) {
      if (!pending.present[r] && !joined_[r]) item.missing_ranks.push_back(r);
    }
    items.push_back(std::move(item));
  }
  StallVerdict verdict = stall_.Inspect(items, now_ms);
  warning_ = verdict.warning;
  if (!verdict.shutdown) return;
  out.shutdown = true;
  out.abort_rank = verdict.stalled_ranks.front();
  std::string ranks;
  for (int r : verdict.stalled_ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  out.abort_message = "Kolo stopped the job because rank(s) " + ranks +
                      " stalled: other ranks waited on tensors they never submitted for longer "
                      "than the stall shutdown time (HOROVOD_STALL_SHUTDOWN_TIME_SECONDS). " +
                      verdict.warning;
}

bool Coordinator::IsReady(const Pending& pending) const {
  const bool global = pending.process_set == 0;
  for (int r : MembersOf(pending)) {
    if (!pending.present[r] && !(global && joined_[r])) return false;
  }
  return true;
}

bool Coordinator::GroupReady(const std::string& group, int32_t group_size) const {
  int32_t ready = 0;
  for (const auto& [name, pending] : table_) {
    for (int r = 0; r < size_; ++r) {
      if (pending.present[r]) {
        if (pending.by_rank[r].group == group && IsReady(pending)) ++ready;
        break;
      }
    }
  }
  return ready == group_size;
}

Response Coordinator::Construct(const std::string& name, const Pending& pending) {
  const std::vector<int>& members = MembersOf(pending);
  if (members.empty()) {
    return ErrorResponse(name, StatusCode::kMismatch, "Process set has been removed");
  }
  std::vector<const Request*> reqs;
  for (int r : members) {
    if (pending.present[r]) reqs.push_back(&pending.by_rank[r]);
  }
  std::string mismatch = FirstMismatch(reqs);
  if (!mismatch.empty()) return ErrorResponse(name, StatusCode::kMismatch, mismatch);
  const Request& a = *reqs.front();
  if (a.type == RequestType::kAddProcessSet || a.type == RequestType::kRemoveProcessSet) {
    return ConstructSetChange(name, reqs);
  }
  const int n = static_cast<int>(members.size());
  if (pending.process_set == 0 && joined_count_ > 0 &&
      JoinUnsupportedMessage(a.type) != nullptr) {
    return ErrorResponse(name, StatusCode::kUnsupported, JoinUnsupportedMessage(a.type));
  }
  Response r;
  r.type = a.type;
  r.names = {name};
  r.dtype = a.dtype;
  r.reduce_op = a.reduce_op;
  r.prescale = a.prescale;
  r.postscale = a.postscale;
  r.root = a.root;
  r.process_set = pending.process_set;
  if (a.type == RequestType::kAllgather) {
    for (int k : members) r.sizes.push_back(pending.by_rank[k].shape[0]);
  } else if (a.type == RequestType::kAlltoall) {
    for (int k : members) {
      const Request& q = pending.by_rank[k];
      if (q.splits.empty()) {
        if (q.shape[0] % n != 0) {
          std::ostringstream msg;
          msg << "Rank " << k << " gave no splits for ALLTOALL '" << name
              << "', and its first dimension " << q.shape[0] << " does not divide evenly by "
              << n << " ranks. Pass splits, or make the first dimension a multiple of the "
              << "number of ranks.";
          return ErrorResponse(name, StatusCode::kMismatch, msg.str());
        }
        for (int d = 0; d < n; ++d) r.splits.push_back(q.shape[0] / n);
      } else {
        r.splits.insert(r.splits.end(), q.splits.begin(), q.splits.end());
      }
    }
  } else if (a.type != RequestType::kBarrier) {
    r.sizes.push_back(NumElements(a.shape));
  }
  return r;
}

ResponseList Coordinator::Compute(const std::vector<RequestList>& lists, int64_t now_ms) {
  ResponseList out;
  out.quiet = true;
  for (const RequestList& list : lists) {
    out.shutdown = out.shutdown || list.shutdown;
    out.quiet = out.quiet && list.requests.empty();
    for (const Request& req : list.requests) {
      if (req.type == RequestType::kJoin) {
        if (!joined_[req.rank]) {
          joined_[req.rank] = true;
          ++joined_count_;
        }
        last_joined_rank_ = req.rank;
      } else {
        Add(req, now_ms);
      }
    }
  }
  std::vector<Response> responses;
  std::vector<std::string> still_waiting;
  std::vector<std::string> emitted_groups;
  for (const std::string& name : arrival_order_) {
    auto it = table_.find(name);
    if (it == table_.end()) continue;  // already emitted with its group this cycle
    const Pending& pending = it->second;
    if (!IsReady(pending)) {
      still_waiting.push_back(name);
      continue;
    }
    const Request* first = nullptr;
    for (int r = 0; r < size_ && first == nullptr; ++r) {
      if (pending.present[r]) first = &pending.by_rank[r];
    }
    if (!first->group.empty()) {
      if (!GroupReady(first->group, first->group_size)) {
        still_waiting.push_back(name);
        continue;
      }
      // Emit every member of the group now, in arrival order, so they fuse together.
      const std::string group = first->group;
      for (const std::string& member : arrival_order_) {
        auto m = table_.find(member);
        if (m == table_.end()) continue;
        bool in_group = false;
        for (int r = 0; r < size_; ++r) {
          if (m->second.present[r]) {
            in_group = m->second.by_rank[r].group == group;
            break;
          }
        }
        if (!in_group) continue;
        responses.push_back(Construct(member, m->second));
        Emitted(member);
        table_.erase(m);
      }
      continue;
    }
    responses.push_back(Construct(name, pending));
    Emitted(name);
    table_.erase(it);
  }
  arrival_order_.clear();
  for (const std::string& name : still_waiting) {
    if (table_.count(name) != 0) arrival_order_.push_back(name);
  }
  out.responses = FuseResponses(std::move(responses), fusion_threshold_bytes_);
  InspectStalls(out, now_ms);
  if (joined_count_ == size_) {
    Response join;
    join.type = RequestType::kJoin;
    join.last_joined_rank = last_joined_rank_;
    out.responses.push_back(join);
    joined_.assign(size_, false);
    joined_count_ = 0;
    last_joined_rank_ = -1;
  }
  return out;
}

std::vector<Response> Coordinator::FuseResponses(std::vector<Response> responses,
                                                int64_t threshold) {
  std::vector<Response> fused;
  std::vector<bool> taken(responses.size(), false);
  for (size_t i = 0; i < responses.size(); ++i) {
    if (taken[i]) continue;
    Response head = std::move(responses[i]);
    taken[i] = true;
    if (head.type == RequestType::kAllreduce && threshold > 0) {
      const int64_t elem = static_cast<int64_t>(DataTypeSize(head.dtype));
      int64_t bytes = head.sizes[0] * elem;
      for (size_t j = i + 1; j < responses.size(); ++j) {
        const Response& c = responses[j];
        if (taken[j] || c.type != RequestType::kAllreduce || c.dtype != head.dtype ||
            c.reduce_op != head.reduce_op || c.prescale != head.prescale ||
            c.postscale != head.postscale || c.process_set != head.process_set) {
          continue;
        }
        if (bytes + c.sizes[0] * elem > threshold) break;
        bytes += c.sizes[0] * elem;
        head.names.push_back(c.names[0]);
        head.sizes.push_back(c.sizes[0]);
        taken[j] = true;
      }
    }
    fused.push_back(std::move(head));
  }
  return fused;
}

std::vector<std::string> Coordinator::PendingNames() const { return arrival_order_; }

}  // namespace kolo

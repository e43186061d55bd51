// Requests waiting on this rank: the table of in-flight tensors by name (with their buffers) and
// the queue of requests not yet sent to the coordinator. Shared by the JS thread and the
// background thread under one mutex.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/message.h"

namespace kolo {

// One tensor of one request. Buffers belong to the caller and stay pinned until Finish.
struct TensorEntry {
  Request request;
  const void* input = nullptr;
  void* output = nullptr;            // allreduce/broadcast destination
  // An allreduce of a packed group (request.parts set): its arrays, in order; input and output
  // are then null.
  std::vector<BufferSegment> parts;
  std::vector<char> result;          // allgather/alltoall/reducescatter result bytes
  std::vector<int64_t> result_splits;
  int32_t last_joined_rank = -1;
  std::shared_ptr<void> owner;       // the binding's per-call state; null for engine scratch
  int index = 0;                     // position within the owner's call
};
using EntryPtr = std::unique_ptr<TensorEntry>;

// The name a join request is tracked under (one join per rank may be in flight).
inline constexpr const char* kJoinName = "join";

class TensorQueue {
 public:
  // Adds all entries or none: fails with kDuplicateName if a name is already in flight.
  Status Add(std::vector<EntryPtr> entries);
  std::vector<Request> PopRequests();
  EntryPtr Take(const std::string& name);
  // A copy of the in-flight request named `name`, if any.
  std::optional<Request> Find(const std::string& name);
  std::vector<EntryPtr> TakeAll();
  size_t InFlight();
  // Requests queued since the last PopRequests.
  bool HasUnsent();
  size_t Unsent();

 private:
  std::mutex mu_;
  std::unordered_map<std::string, EntryPtr> table_;
  std::vector<Request> unsent_;
};

std::string DuplicateNameMessage();

}  // namespace kolo

// Requests waiting on this rank: the table of in-flight tensors by name (with their buffers) and
// the queue of requests not yet sent to the coordinator. Shared by the JS thread and the
// background thread under one mutex.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/block_pool.h"
#include "engine/message.h"

namespace kolo {

// The bytes of a result the engine makes (an allgather's, say): allocated with malloc and not
// zeroed, since the collective writes every byte (a joined rank's stand-in asks for zeros).
class ResultBuffer {
 public:
  // `n` bytes whose contents the caller writes.
  void Allocate(size_t n);
  void AssignZeros(size_t n);
  void Assign(const char* begin, const char* end);
  char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Free {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

// One tensor of one request. Buffers belong to the caller and stay pinned until Finish.
struct TensorEntry {
  Request request;
  const void* input = nullptr;
  // The allreduce/broadcast destination, or an allgather's caller-supplied one (which it
  // writes only when output_bytes is the gathered size; otherwise it gathers into `result`).
  void* output = nullptr;
  size_t output_bytes = 0;
  // An allreduce of a packed group (request.parts set): its arrays, in order; input and output
  // are then null.
  std::vector<BufferSegment> parts;
  ResultBuffer result;               // allgather/alltoall/reducescatter result bytes
  std::vector<int64_t> result_splits;
  int32_t last_joined_rank = -1;
  std::shared_ptr<void> owner;       // the binding's per-call state; null for engine scratch
  int index = 0;                     // position within the owner's call
  bool popped = false;               // under the queue's lock: a cycle has taken its request

  // Entries come and go by the hundred every step: recycle their memory.
  static void* operator new(size_t size) {
    return size == sizeof(TensorEntry) ? BlockPool<sizeof(TensorEntry)>::Allocate() : ::operator new(size);
  }
  static void operator delete(void* p, size_t size) noexcept {
    if (size == sizeof(TensorEntry)) {
      BlockPool<sizeof(TensorEntry)>::Release(p);
    } else {
      ::operator delete(p);
    }
  }
};
using EntryPtr = std::unique_ptr<TensorEntry>;

// The name a join request is tracked under (one join per rank may be in flight).
inline constexpr const char* kJoinName = "join";

// The table is keyed by views of the entries' own names (an entry's name never changes while it
// is queued), and the unsent list points at the entries: queueing a request copies nothing.
class TensorQueue {
 public:
  // Adds all entries or none: fails with kDuplicateName if a name is already in flight (or
  // repeated in the call), leaving `entries` as it was. On success the entries move out of
  // `entries`, which keeps its capacity for the caller.
  Status Add(std::vector<EntryPtr>& entries);
  Status Add(std::vector<EntryPtr>&& entries) { return Add(entries); }
  // Add(calls[i]) for each i < statuses.size() whose statuses[i] is ok on entry, under one lock; its outcome
  // replaces statuses[i].
  void AddEach(std::vector<std::vector<EntryPtr>>& calls, std::vector<Status>& statuses);
  // Replaces `out` with the requests queued since the last call, in order. They point into the
  // entries, and only the thread running the cycle takes entries, so for that thread they stay
  // valid until it takes them.
  void PopRequests(std::vector<const Request*>& out);
  EntryPtr Take(const std::string& name);
  // Takes the entry of each name, in order (null where there is none), under one lock.
  void TakeEach(const std::vector<std::string>& names, std::vector<EntryPtr>& out);
  void TakeEach(const std::vector<std::string_view>& names, std::vector<EntryPtr>& out);
  // Peek for each name, in order, under one lock.
  void PeekEach(const std::vector<std::string_view>& names, std::vector<const TensorEntry*>& out);
  // A copy of the in-flight request named `name`, if any.
  std::optional<Request> Find(const std::string& name);
  // The in-flight entry named `name`, or null. For the thread running the cycle: only it takes
  // entries, so the entry stays valid until it takes it.
  const TensorEntry* Peek(std::string_view name);
  std::vector<EntryPtr> TakeAll();
  // The counts below take no lock (each costs a lock pair per call otherwise, against a small
  // call's dozen): they are as of the last change any thread made under mu_, which a thread
  // sees once it has synchronised with that one. Every use is a hint (whether to wake or wait
  // for the background thread), and a thread's own changes are always in what it reads.
  size_t InFlight() const { return in_flight_.load(std::memory_order_relaxed); }
  // Requests queued since the last PopRequests.
  bool HasUnsent() const { return Unsent() > 0; }
  size_t Unsent() const { return unsent_count_.load(std::memory_order_relaxed); }

 private:
  template <typename Names>
  void TakeEachOf(const Names& names, std::vector<EntryPtr>& out);
  // Add, under mu_.
  Status AddLocked(std::vector<EntryPtr>& entries);
  // Under mu_: removes `e` (being taken) from unsent_ if no cycle has seen it.
  void Forget(const TensorEntry& e);
  // Under mu_, after a change: the counts InFlight and Unsent read.
  void Recount() {
    in_flight_.store(table_.size(), std::memory_order_relaxed);
    unsent_count_.store(unsent_.size(), std::memory_order_relaxed);
  }

  std::mutex mu_;
  using Slot = std::pair<const std::string_view, EntryPtr>;
  std::unordered_map<std::string_view, EntryPtr, std::hash<std::string_view>,
                     std::equal_to<std::string_view>, PoolAllocator<Slot>>
      table_;
  std::vector<TensorEntry*> unsent_;
  std::atomic<size_t> in_flight_{0};
  std::atomic<size_t> unsent_count_{0};
};

std::string DuplicateNameMessage();

}  // namespace kolo

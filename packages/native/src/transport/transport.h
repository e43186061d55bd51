// What the engine needs from a communication backend. One instance per engine generation, used
// by one thread at a time (the engine's background thread, or a caller driving a cycle, under
// the engine's cycle lock), so implementations need no locking.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/common.h"
#include "engine/kernels.h"

namespace kolo {

// A failure of the transport itself (peer gone, timeout). Ends the engine generation.
class TransportError : public std::runtime_error {
 public:
  TransportError(const std::string& what, int peer_rank = -1, bool timed_out = false)
      : std::runtime_error(what), peer_rank_(peer_rank), timed_out_(timed_out) {}
  int peer_rank() const { return peer_rank_; }
  bool timed_out() const { return timed_out_; }

 private:
  int peer_rank_;
  bool timed_out_;
};

struct TransportCapabilities {
  std::string name;
  std::vector<DataType> reduce_dtypes;  // float16 is reduced by the engine in float32
  // Calls may come from any thread, one at a time (not only the engine's background thread).
  bool any_thread = true;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual TransportCapabilities Capabilities() const = 0;

  // Control plane. On rank 0, returns every rank's bytes (index = rank); elsewhere empty.
  virtual std::vector<std::vector<char>> GatherToRoot(const std::vector<char>& mine) = 0;
  // Rank 0's `data` arrives on every rank.
  virtual std::vector<char> BroadcastFromRoot(std::vector<char> data) = 0;

  // Data plane. `op` is never average (the engine turns it into sum + postscale).
  virtual void Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) = 0;
  // out = allreduce(in) * postscale; `out` may be `in`, and `in` is only read. A transport that
  // can read the input where it lies and scale its share while reducing overrides this; the
  // default copies, reduces in place and scales the whole buffer.
  virtual void AllreduceInto(const void* in, void* out, int64_t count, DataType dtype,
                             ReduceOp op, double postscale) {
    if (out != in) CopyBytes(out, in, static_cast<size_t>(count) * DataTypeSize(dtype));
    Allreduce(out, count, dtype, op);
    ScaleBuffer(out, count, dtype, postscale);
  }
  // The segments' outputs = allreduce(their inputs, one after another: `count` elements in all)
  // * postscale. The default copies the inputs into `scratch` (Horovod's fusion buffer), reduces
  // it and copies the result out; a transport that reads and writes the segments where they
  // lie overrides it and saves both copies.
  virtual void AllreduceSegments(const std::vector<BufferSegment>& segments, int64_t count,
                                 DataType dtype, ReduceOp op, double postscale,
                                 std::vector<char>& scratch) {
    const size_t bytes = static_cast<size_t>(count) * DataTypeSize(dtype);
    if (scratch.size() < bytes) scratch.resize(bytes);
    char* at = scratch.data();
    for (const BufferSegment& s : segments) {
      CopyBytes(at, s.in, s.bytes);
      at += s.bytes;
    }
    AllreduceInto(scratch.data(), scratch.data(), count, dtype, op, postscale);
    at = scratch.data();
    for (const BufferSegment& s : segments) {
      CopyBytes(s.out, at, s.bytes);
      at += s.bytes;
    }
  }
  virtual void Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                          size_t element_size) = 0;
  virtual void Broadcast(void* data, size_t bytes, int root) = 0;
  virtual void Alltoallv(const void* input, const std::vector<int64_t>& send_counts,
                         void* output, const std::vector<int64_t>& recv_counts,
                         size_t element_size) = 0;
  virtual void Barrier() = 0;

  // True when every other rank is already waiting in this rank's next collective, so a caller
  // can run it without blocking on peers. A hint only: false whenever the transport cannot tell.
  virtual bool PeersWaiting() const { return false; }
  // Whether collectives move with one copy from the peers' memory (the shared-memory transport,
  // where the kernel allows it and its trial chose it).
  virtual bool SingleCopy() const { return false; }
  // Tells the other ranks that this rank's caller is about to run its next collective (`on`),
  // or no longer is; false when the transport cannot. With PeersReady, callers of every rank
  // that arrive within moments of each other all run it on their own threads instead of
  // handing it to a background thread.
  virtual bool AnnounceNext(bool /*on*/) { return false; }
  // True when every other rank waits in, or has announced, this rank's next collective.
  virtual bool PeersReady() const { return PeersWaiting(); }
  // Whether a rank that waits for its peers should yield its CPU on every poll rather than spin
  // first: the group has more ranks than CPUs, so the peer it waits for may need this very CPU.
  virtual bool YieldWhileWaiting() const { return false; }

  // A round in which every rank publishes bytes and reads every rank's where they lie, behind one
  // barrier: the engine sends a cycle's votes in it together with the data of the small cached
  // allreduces it voted ready, so that those cost one round instead of two. Only transports
  // whose ranks share memory offer it; InPlaceBytes() is 0 for the others, which are never asked.
  virtual size_t InPlaceBytes() const { return 0; }
  // Where this rank writes what it publishes (InPlaceBytes() bytes), until ExchangeInPlace.
  virtual char* InPlaceOutbox() { return nullptr; }
  // Publishes the outbox (unless PublishInPlace already did); returns every rank's, in rank
  // order, readable until the next call to this transport. Throws TransportError as any
  // collective does.
  virtual const char* const* ExchangeInPlace(const char* /*what*/) { return nullptr; }
  // Publishes the outbox now, without waiting for the other ranks (the round's ExchangeInPlace
  // then only waits and reads): a caller can publish, then see without blocking whether every
  // other rank has published in this round too (InPlaceArrived), and leave the wait to another
  // thread when not. Nothing else may use the transport in between.
  virtual void PublishInPlace() {}
  virtual bool InPlaceArrived() const { return false; }
};

}  // namespace kolo

// The intra-host transport: every collective, control plane included, goes through one shared
// memory segment per group, so ranks on one host never touch the network stack. Large
// allreduces run reduce-scatter then allgather in rounds of one slot; small ones let every rank
// reduce the whole (small) buffer, which costs one barrier instead of two.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <memory>

#include "transport/shm_channel.h"
#include "transport/transport.h"

namespace kolo {

class ShmTransport : public Transport {
 public:
  // Blocks until every rank has attached; throws TransportError on failure.
  ShmTransport(KeyValueStore& store, const ShmOptions& options);
  ~ShmTransport() override;

  TransportCapabilities Capabilities() const override;
  std::vector<std::vector<char>> GatherToRoot(const std::vector<char>& mine) override;
  std::vector<char> BroadcastFromRoot(std::vector<char> data) override;
  void Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) override;
  void AllreduceInto(const void* in, void* out, int64_t count, DataType dtype, ReduceOp op,
                     double postscale) override;
  void AllreduceSegments(const std::vector<BufferSegment>& segments, int64_t count,
                         DataType dtype, ReduceOp op, double postscale,
                         std::vector<char>& scratch) override;
  void Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                  size_t element_size) override;
  void Broadcast(void* data, size_t bytes, int root) override;
  void Alltoallv(const void* input, const std::vector<int64_t>& send_counts, void* output,
                 const std::vector<int64_t>& recv_counts, size_t element_size) override;
  void Barrier() override;
  bool PeersWaiting() const override { return channel_->PeersAhead(); }
  bool AnnounceNext(bool on) override {
    channel_->AnnounceNext(on);
    return true;
  }
  bool PeersReady() const override { return channel_->PeersReady(); }
  // As the channel's barriers wait (ShmSpinsFor: no spinning with more ranks than CPUs).
  bool YieldWhileWaiting() const override { return channel_->spins() == 0; }
  // Whether collectives within ShmOptions' single-copy bounds move with one copy in this group
  // (the kernel allows it, and the trial found it no slower).
  bool SingleCopyAvailable() const { return channel_->single_copy(); }
  bool SingleCopy() const override { return SingleCopyAvailable(); }
  // How allreduces of `bytes` (in place or apart) go after their size class's trial (see
  // ShmOptions::single_copy_allreduce_size_trial_min_bytes): 1 through the slots, 0 with one
  // copy, -1 while the class is untried or trying (or outside the trials).
  int SizeTrialVerdict(size_t bytes, bool in_place) const;
  size_t InPlaceBytes() const override;
  char* InPlaceOutbox() override { return channel_->Input(rank_); }
  const char* const* ExchangeInPlace(const char* what) override;
  void PublishInPlace() override;
  bool InPlaceArrived() const override { return channel_->OthersArrived(); }

 private:
  void DirectRound(const char* in, char* out, int64_t count, DataType dtype, ReduceOp op,
                   double postscale);
  // A trial of one copy against the slots (at start-up, and per size class: see ShmOptions::
  // single_copy_trial_bytes and single_copy_allreduce_size_trial_min_bytes): after a warm-up
  // through the slots, kTrialPairs pairs of calls, one each way, each from a barrier, the pairs
  // alternating which way goes first (TrialCallOneCopy).
  static constexpr int kTrialPairs = 8;
  static bool TrialCallOneCopy(int call) { return ((call / 2) % 2 == 0) != (call % 2 == 1); }
  // Rank 0's verdict of a trial, on every rank: whether the slots won, i.e. the median of its
  // pairs' time ratios (slots / one copy) was under 1, so that a slow moment of a shared machine
  // spoils a pair rather than the verdict. `seconds`: each pair's one-copy and slots times.
  bool SlotsWon(const double (&seconds)[2][kTrialPairs]);
  // Times allreduces of `bytes` both ways, and turns one copy off where the slots won.
  void TrialSingleCopy(size_t bytes);
  // A size class's trial, spread over its first calls (a warm-up, then the pairs).
  static constexpr int kSizeTrialCalls = 1 + 2 * kTrialPairs;
  static constexpr int kSizeClasses = 24;
  struct SizeTrial {
    int calls = 0;                           // counted so far
    double seconds[2][kTrialPairs] = {};     // each pair's: one copy, the slots
    bool slots = false;                      // the verdict, once calls reach kSizeTrialCalls
  };
  // How an allreduce of `total` bytes over `segments` goes: whether it tries one copy, and where
  // it is a call of a size trial (in place where every output is its input), the trial and the
  // call's start (after a barrier).
  struct AllreduceWay {
    bool one_copy = false;
    SizeTrial* trial = nullptr;
    std::chrono::steady_clock::time_point start;
  };
  AllreduceWay ChooseAllreduceWay(size_t total, const std::vector<BufferSegment>& segments);
  // Counts a size trial's call (`took_one_copy`: whether it went with one copy), and after its
  // last call sets the class's verdict from rank 0's.
  void EndSizeTrialCall(const AllreduceWay& way, bool took_one_copy);
  // The trial of allreduces of `total` bytes, in place or apart (each its own class).
  size_t SizeClass(size_t total, bool in_place) const;
  // One round of AllreduceSegments over bytes [at, at + count * esize) of the segments.
  void SegmentsRound(const class Segments& segments, size_t at, int64_t count, DataType dtype,
                     ReduceOp op, double postscale, bool stream);
  // An allreduce over segments with one copy (see ShmOptions::single_copy_allreduce_min_bytes).
  // False, with nothing reduced, where some rank's segments do not fit a slot's list or average
  // under ShmOptions::single_copy_allreduce_min_segment_bytes: every rank then sees that, and
  // all take the slots.
  bool SingleCopyAllreduce(const class Segments& segments, const std::vector<BufferSegment>& list,
                           int64_t count, DataType dtype, ReduceOp op, double postscale);
  // Rank r's published inputs (or outputs) over logical bytes [at, at + n), as ranges of its
  // memory, into `ranges`.
  void PeerRanges(int r, bool outputs, size_t at, size_t n, std::vector<struct iovec>& ranges) const;
  // One-copy exchange of the ranks' parts (see ShmOptions' single_copy_* bounds).
  template <typename Into>
  void SingleCopyRound(const void* mine, const std::vector<size_t>& parts, Into into,
                       const char* what);
  // Every rank publishes a byte string; `keep(r)` says whose strings this rank keeps.
  template <typename Keep>
  std::vector<std::vector<char>> Exchange(const std::vector<char>& mine, bool publish, Keep keep,
                                          const char* what);

  std::unique_ptr<ShmChannel> channel_;
  int rank_;
  int size_;
  size_t direct_bytes_;
  size_t stream_bytes_;
  size_t chunk_bytes_;
  size_t single_copy_min_;
  size_t single_copy_max_;
  size_t gather_copy_min_;
  size_t gather_copy_max_;
  size_t reduce_copy_min_;
  size_t reduce_copy_max_;
  size_t reduce_copy_piece_;
  size_t reduce_copy_min_segment_;
  size_t reduce_copy_chunk_;
  size_t reduce_copy_chunk_min_;
  // During TrialSingleCopy, the way its allreduces take: 0 one copy, 1 the slots (-1 after).
  int forced_way_ = -1;
  size_t size_trial_min_;
  std::function<double(bool, double)> size_trial_seconds_;
  std::array<SizeTrial, 2 * kSizeClasses> size_trials_{};
  // SingleCopyAllreduce's: its pieces (one per rank), every rank's segments as published (rank
  // r's at [published_first_[r], published_first_[r + 1]), each with its logical start), and
  // the ranges of one read.
  struct Published {
    uint64_t in = 0, out = 0, bytes = 0;
  };
  std::vector<char> reduce_scratch_;
  std::vector<Published> published_;
  std::vector<size_t> published_first_;
  std::vector<size_t> published_starts_;
  std::vector<struct iovec> local_ranges_, remote_ranges_;
  std::vector<const char*> inboxes_;  // ExchangeInPlace's answer
  bool in_place_published_ = false;   // PublishInPlace ran; the round's ExchangeInPlace waits
  std::vector<size_t> broadcast_parts_;  // Broadcast's SingleCopyRound parts, reused
};

}  // namespace kolo

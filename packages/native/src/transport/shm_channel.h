// The synchronisation layer of the shared-memory transport: the segment's layout (a header, one
// control line per rank, and per-rank data slots), a rank barrier built from per-rank sequence
// numbers, and the liveness checks that turn a dead or silent peer into a TransportError.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <sys/uio.h>

#include "engine/kv_store.h"
#include "transport/shm_segment.h"

namespace kolo {

struct ShmOptions {
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout{30000};
  // Bytes each rank can publish per round (per half of its double-buffered slot).
  size_t slot_bytes = 1 << 20;
  // Allreduce rounds up to this size are reduced whole by every rank: one barrier instead of
  // two, at the price of every rank reading every input (cheap while it fits in cache).
  size_t direct_allreduce_bytes = 32 << 10;
  // Out-of-place allreduces of at least this many bytes write their results with non-temporal
  // stores (StreamBytes). Every rank's input and output then no longer fit in the last-level
  // cache beside the segment, so a cached store would first read each output line from memory
  // only for it to be evicted unread. On a 2-core EPYC with 32 MiB of L3, 2 ranks, 4 to 64 MiB
  // ran 15-25% faster streamed. In place, the round has just read the result's lines.
  size_t stream_bytes = 4 << 20;
  // A rank reduces its share of a round, scales it and copies it to its output this many bytes
  // at a time, so each piece is copied out while it is still in the L1 cache. Reduced whole, a
  // share (512 KiB of a 1 MiB slot on 2 ranks) fills this EPYC's L2, and the copy read much of it
  // back. Pieces of 16 KiB (kolo_shm_bench, 8 alternating pairs, medians of the paired ratios):
  // 0.88-0.96x the time at 256 KiB to 64 MiB on 2 ranks, 0.88-1.01x on 4; fused tensors even.
  size_t reduce_chunk_bytes = 16 << 10;
  // Broadcasts and allgathers within these bounds (an allgather's by its largest part) move
  // with one copy where the kernel lets the ranks read each other's memory (Linux's
  // process_vm_readv, as Open MPI's shared-memory transport does above 4 KiB; probed once per
  // group, and used only if every rank may read every other): receivers read the sender's
  // array straight into theirs (a broadcast's root's, each rank's input in an allgather), where
  // otherwise each sender copies into its slot and the receivers copy out. On a 2-core EPYC
  // VM, 2 ranks, alternating runs: broadcasts 1.1-1.2x faster at 64 KiB and 1.3-1.9x at
  // 128-512 KiB; allgathers 1.2x at 64 KiB parts (6 runs of 7), 1.25-1.9x at 128 KiB and
  // 1.05-1.4x at 256 KiB. Past that the kernel's copy is no faster than two vector copies
  // (2-4 MiB: slower), and an allgather of 512 KiB parts, every rank reading at once, was
  // slower. With more ranks than CPUs (4 ranks on 2) allgathers of 64-256 KiB parts took up to
  // 6x as long and broadcasts gained nothing, so one copy needs a CPU per rank (on every rank)
  // unless `single_copy_oversubscribed`. A maximum of 0 turns each off (and the probe with all).
  // On a 2-core Intel Xeon VM (session 20, 2 alternating runs against those EPYC bounds) one
  // copy won past them too: allgathers 1.3-1.8x faster at 1-16 MiB and 1.3-1.4x at 64 MiB,
  // broadcasts 1.3-2.6x at 1 MiB and 1.0-1.2x at 4 MiB, mixed above. So allgathers take it at
  // every size from 64 KiB parts, as Open MPI does, and broadcasts up to 4 MiB.
  size_t single_copy_broadcast_min_bytes = 64 << 10;
  size_t single_copy_broadcast_max_bytes = 4 << 20;
  size_t single_copy_allgather_min_bytes = 64 << 10;
  size_t single_copy_allgather_max_bytes = size_t{1} << 40;
  // Allreduces within these bounds (one buffer, or a fused allreduce's tensors; see
  // single_copy_allreduce_min_segment_bytes) reduce with one copy, where the kernel allows it as
  // above: each rank reads its share of every peer's input
  // straight from the peer's memory, a piece at a time into scratch that stays in the cache,
  // reduces it with its own share into its output, and once every share is reduced reads the
  // other shares of the result from the peers' outputs into its own. Per rank that moves half
  // the bytes the slots do (publish, reduce, copy out the own share and the others'), which
  // is what bounds large allreduces on a VM with little memory bandwidth (see
  // docs/performance.md, session 20).
  size_t single_copy_allreduce_min_bytes = 512 << 10;
  size_t single_copy_allreduce_max_bytes = size_t{1} << 40;
  // Pieces of 256 KiB: 3 alternating runs on the Intel VM (2 ranks) had 64 KiB and 1 MiB pieces
  // as fast or slower at every size from 1 MiB (16 MiB: 2971-3021 µs against 3242-3315 and
  // 3325-4827).
  size_t single_copy_allreduce_piece_bytes = 256 << 10;
  // One-copy allreduces of at least chunk_min bytes go this many bytes of the buffer at a time,
  // each chunk a reduce-scatter and an allgather of its own (a barrier more per chunk), so a
  // rank reads the peers' shares of the result while they are still in the cache, instead of
  // from memory once the whole buffer is reduced. Session 22, a 2-core AMD EPYC (Zen 5) VM with
  // 32 MiB of L3, 2 ranks, the two ways alternating call by call (median of paired ratios, 2-4
  // runs each): 512 KiB chunks took 0.88-0.96x the time at 8 MiB, 0.87-0.92x at 32 MiB,
  // 0.85-1.03x at 64 MiB (0.92-1.03x at 16 MiB), but 1.02-1.06x at 1 and 4 MiB, which fit in
  // the cache whole; 256 KiB chunks were 3-4% slower than 512 KiB, 1 MiB chunks no better.
  size_t single_copy_allreduce_chunk_bytes = 512 << 10;
  size_t single_copy_allreduce_chunk_min_bytes = 8 << 20;
  // A fused allreduce's tensors take the one-copy path only where they average this much: each
  // is a range the kernel walks on every read. 200 tensors of 4 KiB (fusion bench, 2 ranks, 3
  // alternating runs): 222-322 µs through the slots against 349-390 µs with one copy.
  size_t single_copy_allreduce_min_segment_bytes = 64 << 10;
  bool single_copy_oversubscribed = false;
  // Whether one copy pays depends on how fast the kernel copies between processes against a
  // plain vector copy, which differs by machine far more than by size. Where the kernel allows
  // one copy, a new group therefore first times allreduces of this many bytes both ways (after a
  // warm-up, eight pairs of calls, one each way, each from a barrier, the pairs alternating which
  // way goes first), and keeps one copy unless the median of rank 0's eight time ratios (slots /
  // one copy) is under 1; rank 0 tells every rank. 0: no trial (one copy wherever the kernel
  // allows it). Until session 24 it kept the best of three calls each way, which a slow moment
  // of a shared machine could tip either way. Session 22, a 2-core AMD EPYC (Zen 5) VM:
  // `process_vm_readv` moved 10-12 GB/s where a vector copy moved 55-104 GB/s, and the slots
  // took 0.41-0.56x the time of one copy for 512 KiB to 16 MiB allreduces and 0.38-0.71x for
  // 64 KiB to 4 MiB broadcasts (2 ranks, the two ways alternating call by call); on session 20's
  // Intel VM one copy was the faster (see the bounds above). The verdict holds for broadcasts and
  // allgathers too: a trial of broadcasts of their own (session 24, Intel VM) chose the slots in
  // 3 of 5 starts, timed back to back at start-up, where in a loop through the engine one copy
  // took half their time for 256 KiB-1 MiB broadcasts; it was not kept.
  size_t single_copy_trial_bytes = 1 << 20;
  // Where one copy is kept, allreduces that would take it from this many bytes on are timed both
  // ways again on their first calls, per size class (each a factor of 2 wide, from here up; in
  // place and apart are classes of their own), as
  // the trial above times them: a warm-up call through the slots (a fresh output's page faults),
  // then eight pairs of calls; each class then keeps one copy or takes the slots by rank 0's
  // median ratio. Calls whose tensors kept them off one copy (see
  // single_copy_allreduce_min_segment_bytes) do not count. 0: no size trials. Session 24, a
  // 2-core Intel Xeon VM, 2 ranks: the 1 MiB trial keeps one copy (215 against 294 µs; 795
  // against 1070 at 4 MiB), but 12 alternating rounds had the slots at 0.75x, 0.76x and 0.82x
  // one copy's time at 16, 32 and 64 MiB (1.12x at 8 MiB), where one copy's writes to outputs
  // in memory read each line first; in place, where those lines were just read, the slots took
  // 1.14-1.69x one copy's time at 1-64 MiB.
  size_t single_copy_allreduce_size_trial_min_bytes = 8 << 20;
  // Tests only: maps each size-trial call's measured seconds (with `slots`, the slots').
  std::function<double(bool slots, double seconds)> size_trial_seconds;
  // How many times a waiting rank polls its peer's arrival before it starts to yield the CPU;
  // -1 picks ShmSpinsFor(size, the CPUs this process may run on).
  int spins = -1;
  // Where rank 0 publishes the segment's name, and the prefix the name is derived from.
  std::string store_key;
  std::string name_prefix;
};

// The default number of polls before a waiting rank yields: some hundreds while every rank can
// have a CPU of its own (a peer on another core is usually microseconds away), none when there
// are more ranks than CPUs: the peer a rank waits for then often waits for that very CPU, and
// spinning only delays it (Open MPI yields in that case too).
int ShmSpinsFor(int ranks, int cpus);

class ShmChannel {
 public:
  // Rank 0 creates the segment and publishes its name under `options.store_key`; the others
  // open it. Returns once every rank has mapped it (the name is unlinked by then).
  ShmChannel(KeyValueStore& store, const ShmOptions& options);
  ~ShmChannel();
  ShmChannel(const ShmChannel&) = delete;
  ShmChannel& operator=(const ShmChannel&) = delete;

  // Waits until every rank has made the same number of Sync calls. Each rank's writes before
  // its Sync are visible to every rank after theirs. Throws TransportError on a dead peer, an
  // aborted group or a timeout.
  void Sync(const char* what);
  // Sync in two halves: Arrive makes this rank's call (its writes before it become visible to
  // the ranks that wait for it), WaitOthers waits for every other rank's. OthersArrived: whether
  // WaitOthers would return at once (every other rank has made this rank's latest call).
  void Arrive();
  void WaitOthers(const char* what);
  bool OthersArrived() const;

  // Rank r's input and result areas of the current round's half. Advance() moves to the other
  // half: a rank writes a half again only after a later Sync, by which time every rank has
  // finished reading what it held two rounds earlier.
  char* Input(int rank) const;
  char* Result(int rank) const;
  void Advance() { half_ ^= 1; }
  size_t slot_bytes() const { return slot_bytes_; }
  // Whether every rank may read every other rank's memory with ReadPeer (probed at construction
  // unless both single-copy maximums are 0; every rank gets the same answer).
  bool single_copy() const { return single_copy_; }
  // Turns one copy off for this group (every rank must, at the same point: ShmTransport's trial).
  void DisableSingleCopy() { single_copy_ = false; }
  // Copies `bytes` at `remote` in rank `peer`'s memory to `local`. Throws TransportError naming
  // the peer when the kernel refuses (the peer exited, or the address is not mapped there).
  void ReadPeer(int peer, void* local, const void* remote, size_t bytes, const char* what) const;
  // ReadPeer of scattered bytes: the `remote` ranges, in order, into the `local` ones (the same
  // number of bytes in all, cut anywhere). Both lists are consumed (their entries advanced).
  void ReadPeerV(int peer, std::vector<struct iovec>& local, std::vector<struct iovec>& remote,
                 const char* what) const;
  int rank() const { return rank_; }
  int spins() const { return spins_; }
  int size() const { return size_; }
  // Marks the group failed so peers stop waiting at once.
  void Abort(int failed_rank);
  // Every other rank has already made this rank's next Sync call (it waits there).
  bool PeersAhead() const;
  // Marks (or clears) this rank as about to make its next Sync call.
  void AnnounceNext(bool on);
  // Every other rank has made this rank's next Sync call, or announced it.
  bool PeersReady() const;

 private:
  struct Header;
  struct Control;
  Header& header() const;
  Control& control(int rank) const;
  void WaitFor(int peer, uint32_t target, const char* what);
  // `processes`: also whether each peer's process still runs (system calls per peer).
  void CheckPeers(int awaited, uint32_t target, std::chrono::steady_clock::time_point deadline,
                  const char* what, bool processes);
  void WaitAttached(std::chrono::steady_clock::time_point deadline);
  // Whether every rank wants one copy and can read every other rank's memory (two barriers).
  bool ProbeSingleCopy(bool wanted);

  int rank_;
  int size_;
  int spins_;
  size_t slot_bytes_;
  std::chrono::milliseconds timeout_;
  ShmSegment segment_;
  char* slots_ = nullptr;
  uint32_t epoch_ = 0;
  int half_ = 0;
  bool single_copy_ = false;
};

}  // namespace kolo

// The one-copy allreduce of the shared-memory transport (see ShmOptions'
// single_copy_allreduce_* bounds): ranks read each other's arrays with process_vm_readv instead
// of copying them through the segment's slots.
#include <algorithm>
#include <cstring>

#include "engine/kernels.h"
#include "transport/shm_segments.h"
#include "transport/shm_transport.h"

namespace kolo {

using shm::ForOtherShares;
using shm::Share;

// Every rank publishes where its segments lie (each one's input, output and bytes). Then each
// reduces its share of the logical buffer (Share(), as the slots' reduce-scatter cuts it) into
// its outputs, a piece at a time: every peer's piece read from the peer's inputs into scratch,
// the rank's own read where it lies (in place on a rank past 1, from a copy: ReduceInRankOrder
// writes the first two contributions' sum over the output before it reads the third). After a
// barrier each reads the other shares of the result from their ranks' outputs into its own; a
// last barrier keeps every array in place until all have read it. A large buffer goes chunk by
// chunk, each cut into shares and gathered after a barrier of its own. Peers read only their own
// share of a chunk while its owner writes its other shares, so an output may be its input.
// The ranks' segments need not be cut alike: reads go by logical position. A rank whose list
// does not fit its slot, or whose segments average under the minimum, says so instead, and then
// every rank returns false.
bool ShmTransport::SingleCopyAllreduce(const Segments& segments, const std::vector<BufferSegment>& list,
                                       int64_t count, DataType dtype, ReduceOp op, double postscale) {
  ShmChannel& ch = *channel_;
  const size_t esize = DataTypeSize(dtype);
  constexpr uint64_t kTooMany = ~uint64_t{0};
  // The list: a count, then one record per segment, from the slot's start.
  char* box = ch.Input(rank_);
  // Small tensors go through the slots: a read costs the kernel a walk of each range's pages.
  const bool fits = (list.size() + 1) * sizeof(Published) <= ch.slot_bytes() &&
                    static_cast<size_t>(count) * esize >= reduce_copy_min_segment_ * list.size();
  const uint64_t listed = fits ? list.size() : kTooMany;
  std::memcpy(box, &listed, sizeof listed);
  for (size_t i = 0; fits && i < list.size(); ++i) {
    const Published p{reinterpret_cast<uintptr_t>(list[i].in), reinterpret_cast<uintptr_t>(list[i].out),
                      list[i].bytes};
    std::memcpy(box + sizeof(Published) * (i + 1), &p, sizeof p);
  }
  ch.Sync("allreduce");
  published_.clear();
  published_starts_.clear();
  published_first_.assign(1, 0);
  bool all_fit = true;
  for (int r = 0; r < size_; ++r) {
    const char* theirs = ch.Input(r);
    uint64_t n = 0;
    std::memcpy(&n, theirs, sizeof n);
    if (n == kTooMany) {
      all_fit = false;
    } else {
      size_t at = 0;
      for (uint64_t i = 0; i < n; ++i) {
        Published p;
        std::memcpy(&p, theirs + sizeof(Published) * (i + 1), sizeof p);
        published_.push_back(p);
        published_starts_.push_back(at);
        at += p.bytes;
      }
    }
    published_first_.push_back(published_.size());
  }
  if (!all_fit) {
    ch.Sync("allreduce");  // every rank has read the lists before the slots are written again
    return false;
  }
  const size_t piece = reduce_copy_piece_;
  reduce_scratch_.resize(piece * static_cast<size_t>(size_));
  bool copy_own = false;
  for (const BufferSegment& s : list) copy_own = copy_own || (rank_ >= 2 && s.in == s.out);
  // Chunk by chunk from reduce_copy_chunk_min_ up, each a reduce-scatter and an allgather (see
  // ShmOptions::single_copy_allreduce_chunk_bytes); whole cache lines of elements.
  const int64_t line = std::max<int64_t>(1, static_cast<int64_t>(shm::kCacheLine / esize));
  const int64_t chunk = static_cast<size_t>(count) * esize < reduce_copy_chunk_min_
                            ? count
                            : std::max<int64_t>(line, static_cast<int64_t>(reduce_copy_chunk_ / esize) / line * line);
  for (int64_t first = 0; first < count; first += chunk) {
    const int64_t n_chunk = std::min(chunk, count - first);
    const size_t chunk_at = static_cast<size_t>(first) * esize;
    auto [begin, end] = Share(n_chunk, size_, rank_, esize);
    const size_t share_at = chunk_at + static_cast<size_t>(begin) * esize;
    const size_t share_bytes = static_cast<size_t>(end - begin) * esize;
    for (size_t done = 0; done < share_bytes; done += piece) {
      const size_t len = std::min(piece, share_bytes - done);
      const size_t at = share_at + done;
      for (int r = 0; r < size_; ++r) {
        char* scratch = reduce_scratch_.data() + piece * static_cast<size_t>(r);
        if (r != rank_) {
          PeerRanges(r, /*outputs=*/false, at, len, remote_ranges_);
          local_ranges_.assign(1, {scratch, len});
          ch.ReadPeerV(r, local_ranges_, remote_ranges_, "allreduce");
        } else if (copy_own) {
          segments.Gather(scratch, at, len);
        }
      }
      segments.ForEachPiece(at, len, [&](const char* own, char* dst, size_t pos, size_t n) {
        const size_t off = pos - at;
        ReduceInRankOrder(dst, size_, [&](int r) -> const char* {
          if (r == rank_ && !copy_own) return own;
          return reduce_scratch_.data() + piece * static_cast<size_t>(r) + off;
        }, static_cast<int64_t>(n / esize), dtype, op);
        ScaleBuffer(dst, static_cast<int64_t>(n / esize), dtype, postscale);
      });
    }
    ch.Sync("allreduce");
    ForOtherShares(n_chunk, size_, rank_, esize, [&](int r, size_t off, size_t bytes) {
      PeerRanges(r, /*outputs=*/true, chunk_at + off, bytes, remote_ranges_);
      local_ranges_.clear();
      segments.ForEachPiece(chunk_at + off, bytes, [&](const char*, char* dst, size_t, size_t n) {
        local_ranges_.push_back({dst, n});
      });
      ch.ReadPeerV(r, local_ranges_, remote_ranges_, "allreduce");
    });
  }
  ch.Sync("allreduce");
  return true;
}

void ShmTransport::PeerRanges(int r, bool outputs, size_t at, size_t n,
                              std::vector<struct iovec>& ranges) const {
  ranges.clear();
  const size_t first = published_first_[static_cast<size_t>(r)];
  const size_t last = published_first_[static_cast<size_t>(r) + 1];
  if (first == last || n == 0) return;
  const auto starts = published_starts_.begin();
  size_t i = static_cast<size_t>(std::upper_bound(starts + static_cast<ptrdiff_t>(first),
                                                  starts + static_cast<ptrdiff_t>(last), at) - starts) - 1;
  for (size_t pos = at, end = at + n; pos < end && i < last; ++i) {
    const Published& p = published_[i];
    const size_t skip = pos - published_starts_[i];
    const size_t len = std::min<size_t>(p.bytes - skip, end - pos);
    if (len > 0) ranges.push_back({reinterpret_cast<void*>((outputs ? p.out : p.in) + skip), len});
    pos += len;
  }
}

}  // namespace kolo

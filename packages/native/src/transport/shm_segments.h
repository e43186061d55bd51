// What the shared-memory transport's allreduce paths share (shm_transport.cc's slots,
// shm_one_copy_allreduce.cc's one copy): how a buffer is cut into the ranks' shares, and a fused
// allreduce's tensors seen as one logical buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/kernels.h"
#include "transport/transport.h"

namespace kolo {
namespace shm {

constexpr size_t kCacheLine = 64;

// Rank r's share [begin, end) of `count` elements, cut on cache-line boundaries so two ranks
// never write the same line.
inline std::pair<int64_t, int64_t> Share(int64_t count, int size, int r, size_t esize) {
  const int64_t line = std::max<int64_t>(1, static_cast<int64_t>(kCacheLine / esize));
  int64_t per = (count + size - 1) / size;
  per = (per + line - 1) / line * line;
  const int64_t begin = std::min(count, per * r);
  return {begin, std::min(count, begin + per)};
}

// fn(r, byte offset, bytes) for the share of every rank r but `rank` that is not empty: what a
// rank copies out of the others' result areas after a reduce-scatter.
template <typename Fn>
void ForOtherShares(int64_t count, int size, int rank, size_t esize, Fn fn) {
  for (int r = 0; r < size; ++r) {
    auto [b, e] = Share(count, size, r, esize);
    if (r == rank || e <= b) continue;
    fn(r, static_cast<size_t>(b) * esize, static_cast<size_t>(e - b) * esize);
  }
}

}  // namespace shm

// The segments of a fused allreduce as one logical buffer: copies between a byte range of it and
// a contiguous buffer, piece by piece.
class Segments {
 public:
  explicit Segments(const std::vector<BufferSegment>& segments) : segments_(segments) {
    starts_.reserve(segments.size());
    size_t at = 0;
    for (const BufferSegment& s : segments) {
      starts_.push_back(at);
      at += s.bytes;
    }
  }
  // Copies bytes [at, at + n) of the inputs to `dst`.
  void Gather(char* dst, size_t at, size_t n) const {
    Visit(at, n, [&](size_t i, size_t skip, size_t len, size_t pos) {
      CopyBytes(dst + (pos - at), static_cast<const char*>(segments_[i].in) + skip, len);
    });
  }
  // Copies `src` to bytes [at, at + n) of the outputs (`stream`: with StreamBytes, but for a
  // segment reduced in place, whose lines the round has just read into the cache).
  void Scatter(const char* src, size_t at, size_t n, bool stream = false) const {
    Visit(at, n, [&](size_t i, size_t skip, size_t len, size_t pos) {
      char* to = static_cast<char*>(segments_[i].out) + skip;
      if (stream && segments_[i].out != segments_[i].in) {
        StreamBytes(to, src + (pos - at), len);
      } else {
        CopyBytes(to, src + (pos - at), len);
      }
    });
  }
  // fn(input, output, logical position, length) for each piece of bytes [at, at + n).
  template <typename Fn>
  void ForEachPiece(size_t at, size_t n, Fn fn) const {
    Visit(at, n, [&](size_t i, size_t skip, size_t len, size_t pos) {
      fn(static_cast<const char*>(segments_[i].in) + skip, static_cast<char*>(segments_[i].out) + skip,
         pos, len);
    });
  }
  // fn(input, logical position, length) for each piece of the inputs' bytes [at, at + n).
  template <typename Fn>
  void ForEachInput(size_t at, size_t n, Fn fn) const {
    Visit(at, n, [&](size_t i, size_t skip, size_t len, size_t pos) {
      fn(static_cast<const char*>(segments_[i].in) + skip, pos, len);
    });
  }

 private:
  // fn(segment, offset within it, length, logical position) for each piece of [at, at + n).
  template <typename Fn>
  void Visit(size_t at, size_t n, Fn fn) const {
    if (n == 0) return;
    size_t i = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), at) - starts_.begin()) - 1;
    const size_t end = at + n;
    for (size_t pos = at; pos < end; ++i) {
      const size_t skip = pos - starts_[i];
      const size_t len = std::min(segments_[i].bytes - skip, end - pos);
      if (len > 0) fn(i, skip, len, pos);
      pos += len;
    }
  }

  const std::vector<BufferSegment>& segments_;
  std::vector<size_t> starts_;
};

}  // namespace kolo

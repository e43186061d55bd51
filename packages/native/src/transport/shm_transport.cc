#include "transport/shm_transport.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <utility>

#include "engine/kernels.h"
#include "transport/shm_segments.h"

namespace kolo {

using shm::ForOtherShares;
using shm::kCacheLine;
using shm::Share;

namespace {

// What InPlaceBytes leaves for the engine's votes besides a direct round's data.
constexpr size_t kInPlaceVoteRoom = 4096;

}  // namespace

ShmTransport::ShmTransport(KeyValueStore& store, const ShmOptions& options)
    : channel_(std::make_unique<ShmChannel>(store, options)),
      rank_(options.rank),
      size_(options.size),
      direct_bytes_(options.direct_allreduce_bytes),
      stream_bytes_(options.stream_bytes),
      // Whole cache lines, so that pieces of every element size end on element boundaries.
      chunk_bytes_(std::max(kCacheLine, options.reduce_chunk_bytes / kCacheLine * kCacheLine)),
      single_copy_min_(options.single_copy_broadcast_min_bytes),
      single_copy_max_(options.single_copy_broadcast_max_bytes),
      gather_copy_min_(options.single_copy_allgather_min_bytes),
      gather_copy_max_(options.single_copy_allgather_max_bytes),
      reduce_copy_min_(options.single_copy_allreduce_min_bytes),
      reduce_copy_max_(options.single_copy_allreduce_max_bytes),
      // Whole cache lines, so that pieces of every element size end on element boundaries.
      reduce_copy_piece_(std::max(kCacheLine, options.single_copy_allreduce_piece_bytes / kCacheLine * kCacheLine)),
      reduce_copy_min_segment_(options.single_copy_allreduce_min_segment_bytes),
      reduce_copy_chunk_(options.single_copy_allreduce_chunk_bytes),
      reduce_copy_chunk_min_(options.single_copy_allreduce_chunk_min_bytes),
      size_trial_min_(options.single_copy_allreduce_size_trial_min_bytes),
      size_trial_seconds_(options.size_trial_seconds) {
  const size_t trial = options.single_copy_trial_bytes;
  if (channel_->single_copy() && trial > 0 && trial >= reduce_copy_min_ && trial <= reduce_copy_max_) {
    TrialSingleCopy(trial);
  }
}

void ShmTransport::TrialSingleCopy(size_t bytes) {
  const int64_t count = static_cast<int64_t>(bytes / sizeof(float));
  std::vector<float> in(static_cast<size_t>(count), 1.0f), out(static_cast<size_t>(count), 0.0f);
  double seconds[2][kTrialPairs] = {};
  forced_way_ = 1;
  AllreduceInto(in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, 1.0);
  for (int call = 0; call < 2 * kTrialPairs; ++call) {
    const bool one_copy = TrialCallOneCopy(call);
    forced_way_ = one_copy ? 0 : 1;
    Barrier();
    const auto start = std::chrono::steady_clock::now();
    AllreduceInto(in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, 1.0);
    seconds[one_copy ? 0 : 1][call / 2] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  forced_way_ = -1;
  if (SlotsWon(seconds)) channel_->DisableSingleCopy();
}

bool ShmTransport::SlotsWon(const double (&seconds)[2][kTrialPairs]) {
  std::array<double, kTrialPairs> ratios{};
  for (int p = 0; p < kTrialPairs; ++p) ratios[p] = seconds[1][p] / std::max(seconds[0][p], 1e-12);
  std::sort(ratios.begin(), ratios.end());
  const bool slots = ratios[kTrialPairs / 2 - 1] * ratios[kTrialPairs / 2] < 1.0;
  const std::vector<char> verdict = BroadcastFromRoot(std::vector<char>(1, slots ? 1 : 0));
  return verdict.size() != 1 || verdict[0] == 1;
}

ShmTransport::~ShmTransport() = default;

TransportCapabilities ShmTransport::Capabilities() const {
  return {"shm",
          {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64,
           DataType::kUint8, DataType::kInt8}};
}

// Rounds of one slot: round 0 carries each string's length in its first 8 bytes, so every rank
// learns the longest string (and so the number of rounds) after the first barrier.
template <typename Keep>
std::vector<std::vector<char>> ShmTransport::Exchange(const std::vector<char>& mine, bool publish,
                                                      Keep keep, const char* what) {
  ShmChannel& ch = *channel_;
  const size_t slot = ch.slot_bytes();
  const uint64_t my_len = publish ? mine.size() : 0;
  std::vector<std::vector<char>> out(static_cast<size_t>(size_));
  std::vector<uint64_t> lens(static_cast<size_t>(size_), 0);
  uint64_t longest = 0;
  size_t offset = 0;  // bytes of each string carried by earlier rounds
  for (int round = 0;; ++round) {
    const size_t head = round == 0 ? sizeof(uint64_t) : 0;
    char* in = ch.Input(rank_);
    if (round == 0) CopyBytes(in, &my_len, sizeof my_len);
    if (offset < my_len) {
      CopyBytes(in + head, mine.data() + offset, std::min<size_t>(my_len - offset, slot - head));
    }
    ch.Sync(what);
    for (int r = 0; r < size_; ++r) {
      const char* peer = ch.Input(r);
      if (round == 0) {
        CopyBytes(&lens[r], peer, sizeof(uint64_t));
        longest = std::max(longest, lens[r]);
        if (keep(r)) out[r].resize(lens[r]);
      }
      if (keep(r) && offset < lens[r]) {
        CopyBytes(out[r].data() + offset, peer + head,
                    std::min<size_t>(lens[r] - offset, slot - head));
      }
    }
    ch.Advance();
    offset += slot - head;
    if (offset >= longest) break;
  }
  return out;
}

std::vector<std::vector<char>> ShmTransport::GatherToRoot(const std::vector<char>& mine) {
  const bool root = rank_ == 0;
  auto all = Exchange(mine, true, [root](int) { return root; }, "gathering requests");
  if (!root) all.clear();
  return all;
}

std::vector<char> ShmTransport::BroadcastFromRoot(std::vector<char> data) {
  const bool root = rank_ == 0;
  auto all = Exchange(data, root, [root](int r) { return r == 0 && !root; },
                      "broadcasting responses");
  return root ? std::move(data) : std::move(all[0]);
}

void ShmTransport::Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) {
  AllreduceInto(data, data, count, dtype, op, 1.0);
}

void ShmTransport::AllreduceInto(const void* in, void* out, int64_t count, DataType dtype,
                                 ReduceOp op, double postscale) {
  if (count == 0) return;
  const size_t esize = DataTypeSize(dtype);
  if (size_ == 1) {
    if (out != in) CopyBytes(out, in, static_cast<size_t>(count) * esize);
    ScaleBuffer(out, count, dtype, postscale);
    return;
  }
  const int64_t per_round = static_cast<int64_t>(channel_->slot_bytes() / esize);
  const size_t total = static_cast<size_t>(count) * esize;
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  // In place, the result's lines are in the cache already (this round read them).
  const bool stream = out != in && total >= stream_bytes_;
  // The buffer as one segment: a scatter-gather round is the fused path's, reading this rank's
  // share where it lies and writing results straight to `out` (which may be `in`).
  const std::vector<BufferSegment> whole{{in, out, total}};
  const Segments segments(whole);
  const AllreduceWay way = ChooseAllreduceWay(total, whole);
  const bool one_copy = way.one_copy && SingleCopyAllreduce(segments, whole, count, dtype, op, postscale);
  for (int64_t start = 0; !one_copy && start < count; start += per_round) {
    const int64_t n = std::min(per_round, count - start);
    const size_t at = static_cast<size_t>(start) * esize;
    if (static_cast<size_t>(n) * esize <= direct_bytes_) {
      DirectRound(src + at, dst + at, n, dtype, op, postscale);
    } else {
      SegmentsRound(segments, at, n, dtype, op, postscale, stream);
    }
  }
  if (way.trial != nullptr) EndSizeTrialCall(way, one_copy);
}

size_t ShmTransport::SizeClass(size_t total, bool in_place) const {
  size_t c = 0;
  for (size_t times = total / size_trial_min_; times >= 2 && c + 1 < kSizeClasses; times /= 2) ++c;
  return 2 * c + (in_place ? 1 : 0);
}

ShmTransport::AllreduceWay ShmTransport::ChooseAllreduceWay(size_t total,
                                                            const std::vector<BufferSegment>& segments) {
  AllreduceWay way;
  way.one_copy = channel_->single_copy() && forced_way_ != 1 && total >= reduce_copy_min_ && total <= reduce_copy_max_;
  if (!way.one_copy || forced_way_ == 0 || size_trial_min_ == 0 || total < size_trial_min_) return way;
  bool in_place = true;
  for (const BufferSegment& s : segments) in_place = in_place && s.in == s.out;
  SizeTrial& trial = size_trials_[SizeClass(total, in_place)];
  if (trial.calls >= kSizeTrialCalls) {
    way.one_copy = !trial.slots;
    return way;
  }
  way.trial = &trial;
  way.one_copy = trial.calls > 0 && TrialCallOneCopy(trial.calls - 1);  // the warm-up: the slots
  if (trial.calls == 0) return way;
  Barrier();
  way.start = std::chrono::steady_clock::now();
  return way;
}

void ShmTransport::EndSizeTrialCall(const AllreduceWay& way, bool took_one_copy) {
  // A call meant for one copy that the tensors kept off it says nothing of one copy.
  if (way.one_copy && !took_one_copy) return;
  SizeTrial& trial = *way.trial;
  if (trial.calls++ == 0) return;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - way.start).count();
  if (size_trial_seconds_) seconds = size_trial_seconds_(!way.one_copy, seconds);
  trial.seconds[way.one_copy ? 0 : 1][(trial.calls - 2) / 2] = seconds;
  if (trial.calls == kSizeTrialCalls) trial.slots = SlotsWon(trial.seconds);
}

int ShmTransport::SizeTrialVerdict(size_t bytes, bool in_place) const {
  if (size_trial_min_ == 0 || bytes < size_trial_min_) return -1;
  const SizeTrial& trial = size_trials_[SizeClass(bytes, in_place)];
  return trial.calls < kSizeTrialCalls ? -1 : (trial.slots ? 1 : 0);
}

void ShmTransport::AllreduceSegments(const std::vector<BufferSegment>& segments, int64_t count,
                                     DataType dtype, ReduceOp op, double postscale,
                                     std::vector<char>& scratch) {
  if (count == 0) return;
  if (size_ == 1) {
    // Alone, each result is its input scaled: one copy per segment, no fusion buffer.
    const size_t esize = DataTypeSize(dtype);
    for (const BufferSegment& s : segments) {
      if (s.out != s.in && s.bytes != 0) CopyBytes(s.out, s.in, s.bytes);
      ScaleBuffer(s.out, static_cast<int64_t>(s.bytes / esize), dtype, postscale);
    }
    return;
  }
  if (segments.size() == 1) {
    Transport::AllreduceSegments(segments, count, dtype, op, postscale, scratch);
    return;
  }
  const size_t esize = DataTypeSize(dtype);
  const Segments pieces(segments);
  const size_t total = static_cast<size_t>(count) * esize;
  const AllreduceWay way = ChooseAllreduceWay(total, segments);
  const bool one_copy = way.one_copy && SingleCopyAllreduce(pieces, segments, count, dtype, op, postscale);
  const int64_t per_round = static_cast<int64_t>(channel_->slot_bytes() / esize);
  const bool stream = total >= stream_bytes_;
  for (int64_t start = 0; !one_copy && start < count; start += per_round) {
    const int64_t n = std::min(per_round, count - start);
    SegmentsRound(pieces, static_cast<size_t>(start) * esize, n, dtype, op, postscale, stream);
  }
  if (way.trial != nullptr) EndSizeTrialCall(way, one_copy);
}

// One round of an allreduce over segments (a fused allreduce's tensors, or AllreduceInto's one
// buffer), reading the round's inputs from the segments and writing results straight to their
// outputs: no fusion buffer is copied in or out. A direct round publishes the whole round and
// reduces into this rank's result area of the slot, which no peer reads in a direct round. A
// scatter-gather round publishes all but this rank's share, which only this rank reduces,
// reading it from the segments; then, after the second barrier, every rank copies the other
// shares out. A segment's output may be its input: a chunk of it is read before the same chunk
// is written, later chunks are other bytes, and the other shares were published before.
void ShmTransport::SegmentsRound(const Segments& segments, size_t at, int64_t count,
                                 DataType dtype, ReduceOp op, double postscale, bool stream) {
  ShmChannel& ch = *channel_;
  const size_t esize = DataTypeSize(dtype);
  const size_t total = static_cast<size_t>(count) * esize;
  if (total <= direct_bytes_) {
    segments.Gather(ch.Input(rank_), at, total);
    ch.Sync("allreduce");
    char* reduced = ch.Result(rank_);
    ReduceInRankOrder(reduced, size_, [&](int r) { return ch.Input(r); }, count, dtype, op);
    ScaleBuffer(reduced, count, dtype, postscale);
    segments.Scatter(reduced, at, total);
    ch.Advance();
    return;
  }
  auto [begin, end] = Share(count, size_, rank_, esize);
  const size_t mine_off = static_cast<size_t>(begin) * esize;
  const size_t mine_bytes = static_cast<size_t>(end - begin) * esize;
  char* published = ch.Input(rank_);
  segments.Gather(published, at, mine_off);
  segments.Gather(published + mine_off + mine_bytes, at + mine_off + mine_bytes,
                  total - mine_off - mine_bytes);
  ch.Sync("allreduce");
  // A chunk at a time (see ShmOptions::reduce_chunk_bytes); within a chunk, piece by piece where
  // it crosses tensors (segments hold whole elements).
  for (size_t done = 0; done < mine_bytes; done += chunk_bytes_) {
    const size_t len = std::min(chunk_bytes_, mine_bytes - done);
    const size_t from = at + mine_off + done;
    segments.ForEachInput(from, len, [&](const char* own, size_t pos, size_t piece) {
      const size_t off = pos - at;
      ReduceInRankOrder(ch.Result(rank_) + off, size_,
                        [&](int r) { return r == rank_ ? own : ch.Input(r) + off; },
                        static_cast<int64_t>(piece / esize), dtype, op);
    });
    char* reduced = ch.Result(rank_) + mine_off + done;
    ScaleBuffer(reduced, static_cast<int64_t>(len / esize), dtype, postscale);
    segments.Scatter(reduced, from, len, stream);
  }
  ch.Sync("allreduce");
  ForOtherShares(count, size_, rank_, esize, [&](int r, size_t off, size_t bytes) {
    segments.Scatter(ch.Result(r) + off, at + off, bytes, stream);
  });
  ch.Advance();
}

// Every rank reduces all contributions in rank order, so results are bitwise identical.
// Votes and a direct round's worth of data (the engine's speculation), within one slot.
size_t ShmTransport::InPlaceBytes() const {
  return std::min(channel_->slot_bytes(), direct_bytes_ + kInPlaceVoteRoom);
}

void ShmTransport::PublishInPlace() {
  channel_->Arrive();
  in_place_published_ = true;
}

const char* const* ShmTransport::ExchangeInPlace(const char* what) {
  ShmChannel& ch = *channel_;
  if (!std::exchange(in_place_published_, false)) ch.Arrive();
  ch.WaitOthers(what);
  inboxes_.resize(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) inboxes_[r] = ch.Input(r);
  // The next round writes the other half, so these stay intact until the one after it.
  ch.Advance();
  return inboxes_.data();
}

void ShmTransport::DirectRound(const char* in, char* out, int64_t count, DataType dtype,
                               ReduceOp op, double postscale) {
  ShmChannel& ch = *channel_;
  const size_t bytes = static_cast<size_t>(count) * DataTypeSize(dtype);
  CopyBytes(ch.Input(rank_), in, bytes);
  ch.Sync("allreduce");
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) PrefetchBytes(ch.Input(r), bytes);  // a direct round: at most direct_bytes_
  }
  ReduceInRankOrder(out, size_, [&](int r) { return ch.Input(r); }, count, dtype, op);
  ScaleBuffer(out, count, dtype, postscale);
  ch.Advance();
}

namespace {
// An allgather's own part to its place in the output. The input may alias the output (then
// memmove); apart, CopyBytes: glibc's memmove copies these sizes with `rep movsb`, slow here
// (kernels.h).
void CopyOwnPart(char* mine, const char* in, size_t bytes) {
  if (mine == in) return;
  const auto in_at = reinterpret_cast<uintptr_t>(in), mine_at = reinterpret_cast<uintptr_t>(mine);
  if (in_at + bytes <= mine_at || mine_at + bytes <= in_at) {
    CopyBytes(mine, in, bytes);
  } else {
    std::memmove(mine, in, bytes);
  }
}
}  // namespace

// Every rank publishes where its part lies; each then reads every other rank's part (`parts[r]`
// bytes, none where 0) from that rank's memory to `into(r)`. The second barrier keeps every
// part in place until all have read it; every read of an address ends before it too, so the
// next round may write this same half.
template <typename Into>
void ShmTransport::SingleCopyRound(const void* mine, const std::vector<size_t>& parts, Into into,
                                   const char* what) {
  ShmChannel& ch = *channel_;
  const auto at = reinterpret_cast<uintptr_t>(mine);
  std::memcpy(ch.Input(rank_), &at, sizeof at);
  ch.Sync(what);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_ || parts[r] == 0) continue;
    uintptr_t from = 0;
    std::memcpy(&from, ch.Input(r), sizeof from);
    ch.ReadPeer(r, into(r), reinterpret_cast<const void*>(from), parts[r], what);
  }
  ch.Sync(what);
}

void ShmTransport::Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                              size_t element_size) {
  ShmChannel& ch = *channel_;
  const size_t slot = ch.slot_bytes();
  std::vector<size_t> bytes, offsets;
  size_t total = 0, longest = 0;
  for (size_t c : counts) {
    bytes.push_back(c * element_size);
    offsets.push_back(total);
    total += c * element_size;
    longest = std::max(longest, c * element_size);
  }
  if (total == 0) return;
  char* out = static_cast<char*>(output);
  const char* in = static_cast<const char*>(input);
  char* mine = out + offsets[rank_];
  CopyOwnPart(mine, in, bytes[rank_]);
  if (ch.single_copy() && longest >= gather_copy_min_ && longest <= gather_copy_max_) {
    // One copy (see ShmOptions::single_copy_allgather_min_bytes): peers read each rank's part
    // from its input (lines only read, so they come faster than the freshly written copy), or
    // from its place in its output where the input overlaps the output (and so may overlap
    // other ranks' places, which the reads below write).
    const bool apart = in + bytes[rank_] <= out || out + total <= in;
    SingleCopyRound(apart ? in : mine, bytes, [&](int r) { return out + offsets[r]; }, "allgather");
    return;
  }
  // Our part is read from the output after.
  in = mine;
  for (size_t done = 0; done < longest; done += slot) {
    if (done < bytes[rank_]) {
      CopyBytes(ch.Input(rank_), in + done, std::min(slot, bytes[rank_] - done));
    }
    ch.Sync("allgather");
    for (int r = 0; r < size_; ++r) {
      if (r == rank_ || done >= bytes[r]) continue;
      CopyBytes(out + offsets[r] + done, ch.Input(r), std::min(slot, bytes[r] - done));
    }
    ch.Advance();
  }
}

void ShmTransport::Broadcast(void* data, size_t bytes, int root) {
  ShmChannel& ch = *channel_;
  if (ch.single_copy() && bytes > 0 && bytes >= single_copy_min_ && bytes <= single_copy_max_) {
    std::vector<size_t>& parts = broadcast_parts_;
    parts.assign(static_cast<size_t>(size_), 0);
    parts[static_cast<size_t>(root)] = bytes;
    SingleCopyRound(data, parts, [data](int) { return static_cast<char*>(data); }, "broadcast");
    return;
  }
  const size_t slot = ch.slot_bytes();
  char* p = static_cast<char*>(data);
  for (size_t done = 0; done < bytes; done += slot) {
    const size_t n = std::min(slot, bytes - done);
    if (rank_ == root) CopyBytes(ch.Input(root), p + done, n);
    ch.Sync("broadcast");
    if (rank_ != root) CopyBytes(p + done, ch.Input(root), n);
    ch.Advance();
  }
}

// A first round publishes every rank's send counts (so all ranks agree on the number of
// rounds); then each round carries up to one region per destination from every sender.
void ShmTransport::Alltoallv(const void* input, const std::vector<int64_t>& send_counts,
                             void* output, const std::vector<int64_t>& recv_counts,
                             size_t element_size) {
  ShmChannel& ch = *channel_;
  const size_t n = static_cast<size_t>(size_);
  CopyBytes(ch.Input(rank_), send_counts.data(), n * sizeof(int64_t));
  ch.Sync("alltoall");
  size_t longest = 0;
  for (int r = 0; r < size_; ++r) {
    const int64_t* row = reinterpret_cast<const int64_t*>(ch.Input(r));
    for (size_t j = 0; j < n; ++j) {
      if (static_cast<int>(j) != r) {
        longest = std::max(longest, static_cast<size_t>(row[j]) * element_size);
      }
    }
  }
  ch.Advance();
  std::vector<size_t> send_off(n + 1, 0), recv_off(n + 1, 0);
  for (size_t j = 0; j < n; ++j) {
    send_off[j + 1] = send_off[j] + static_cast<size_t>(send_counts[j]) * element_size;
    recv_off[j + 1] = recv_off[j] + static_cast<size_t>(recv_counts[j]) * element_size;
  }
  const char* in = static_cast<const char*>(input);
  char* out = static_cast<char*>(output);
  const size_t mine = send_off[rank_ + 1] - send_off[rank_];
  if (mine > 0) CopyBytes(out + recv_off[rank_], in + send_off[rank_], mine);
  const size_t region = ch.slot_bytes() / n / kCacheLine * kCacheLine;
  for (size_t done = 0; done < longest; done += region) {
    for (size_t j = 0; j < n; ++j) {
      const size_t len = send_off[j + 1] - send_off[j];
      if (static_cast<int>(j) == rank_ || done >= len) continue;
      CopyBytes(ch.Input(rank_) + j * region, in + send_off[j] + done,
                  std::min(region, len - done));
    }
    ch.Sync("alltoall");
    for (size_t r = 0; r < n; ++r) {
      const size_t len = recv_off[r + 1] - recv_off[r];
      if (static_cast<int>(r) == rank_ || done >= len) continue;
      CopyBytes(out + recv_off[r] + done, ch.Input(static_cast<int>(r)) + rank_ * region,
                  std::min(region, len - done));
    }
    ch.Advance();
  }
}

void ShmTransport::Barrier() { channel_->Sync("barrier"); }

}  // namespace kolo

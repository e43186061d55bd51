// The shared-memory transport's collectives, with ranks as threads: every op over 2, 3 and 4
// ranks, in one round and across many rounds (a small slot forces them).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>

#include "forwarding_transport.h"
#include "shm_test_util.h"

namespace kolo {
namespace {

// A 4 KiB slot makes every buffer over 4 KiB take several rounds, and allreduce rounds over
// 1 KiB take the reduce-scatter path, where a rank reduces its share 320 bytes at a time (80
// float32s: chunks end inside tensors and elements of every size). `stream`: every allreduce
// writes its results with streamed stores, as the large ones do by default.
ShmOptions SmallSlots(int rank, int size, bool stream = false) {
  ShmOptions o = TestShmOptions(rank, size, "shmtest-ops");
  o.slot_bytes = 4096;
  o.direct_allreduce_bytes = 1024;
  o.reduce_chunk_bytes = 320;
  if (stream) o.stream_bytes = 0;
  return o;
}

class ShmOps : public ::testing::TestWithParam<int> {
 protected:
  int size() const { return GetParam(); }

  // Runs an allreduce of value(rank, i) on every rank and checks expected(i) everywhere.
  template <typename T, typename Value, typename Expected>
  void CheckAllreduce(int64_t count, DataType dtype, ReduceOp op, Value value,
                      Expected expected) {
    const int n = size();
    RunRanks(n, [n](int r) { return SmallSlots(r, n); }, [&](ShmTransport& t, int r) {
      std::vector<T> data(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) data[i] = value(r, i);
      t.Allreduce(data.data(), count, dtype, op);
      for (int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(data[i], expected(i)) << "rank " << r << " element " << i;
      }
    });
  }
};

// Sizes: one element, a direct round, one reduce-scatter round with uneven shares, many rounds.
const int64_t kCounts[] = {1, 200, 1000, 10007};

TEST_P(ShmOps, Float32SumIsExactOnEveryRank) {
  const int n = size();
  for (int64_t count : kCounts) {
    CheckAllreduce<float>(count, DataType::kFloat32, ReduceOp::kSum,
                          [](int r, int64_t i) { return static_cast<float>(r + 1) * (i % 97); },
                          [n](int64_t i) { return static_cast<float>(n * (n + 1) / 2 * (i % 97)); });
  }
}

TEST_P(ShmOps, Float64MinAndMax) {
  const int n = size();
  for (int64_t count : kCounts) {
    CheckAllreduce<double>(count, DataType::kFloat64, ReduceOp::kMin,
                           [](int r, int64_t i) { return (i % 2 ? 1.0 : -1.0) * (r + 0.5); },
                           [n](int64_t i) { return i % 2 ? 0.5 : -(n - 0.5); });
    CheckAllreduce<double>(count, DataType::kFloat64, ReduceOp::kMax,
                           [](int r, int64_t i) { return (i % 2 ? 1.0 : -1.0) * (r + 0.5); },
                           [n](int64_t i) { return i % 2 ? n - 0.5 : -0.5; });
  }
}

TEST_P(ShmOps, Int32ProductAndInt64Sum) {
  const int n = size();
  for (int64_t count : kCounts) {
    CheckAllreduce<int32_t>(count, DataType::kInt32, ReduceOp::kProduct,
                            [](int r, int64_t i) { return static_cast<int32_t>(r + 2); },
                            [n](int64_t) {
                              int32_t p = 1;
                              for (int r = 0; r < n; ++r) p *= r + 2;
                              return p;
                            });
    CheckAllreduce<int64_t>(count, DataType::kInt64, ReduceOp::kSum,
                            [](int r, int64_t i) { return (int64_t{1} << 40) * r - i; },
                            [n](int64_t i) { return (int64_t{1} << 40) * (n * (n - 1) / 2) - n * i; });
  }
}

TEST_P(ShmOps, Int8AndUint8SumsWrap) {
  const int n = size();
  for (int64_t count : kCounts) {
    CheckAllreduce<int8_t>(count, DataType::kInt8, ReduceOp::kSum,
                           [](int, int64_t) { return static_cast<int8_t>(100); },
                           [n](int64_t) { return static_cast<int8_t>(static_cast<uint8_t>(100 * n)); });
    CheckAllreduce<uint8_t>(count, DataType::kUint8, ReduceOp::kMax,
                            [](int r, int64_t i) { return static_cast<uint8_t>((r * 7 + i) % 256); },
                            [n](int64_t i) {
                              uint8_t m = 0;
                              for (int r = 0; r < n; ++r) m = std::max<uint8_t>(m, (r * 7 + i) % 256);
                              return m;
                            });
  }
}

TEST_P(ShmOps, AllgathervWithUnevenAndEmptyParts) {
  const int n = size();
  RunRanks(n, [n](int r) { return SmallSlots(r, n); }, [&](ShmTransport& t, int r) {
    std::vector<size_t> counts;
    size_t total = 0;
    for (int k = 0; k < n; ++k) {
      counts.push_back(k == 1 ? 0 : 3000 * (k + 1));  // rank 1 sends nothing
      total += counts.back();
    }
    std::vector<int32_t> mine(counts[r]);
    for (size_t i = 0; i < mine.size(); ++i) mine[i] = r * 100000 + static_cast<int32_t>(i);
    std::vector<int32_t> all(total);
    t.Allgatherv(mine.data(), all.data(), counts, sizeof(int32_t));
    size_t at = 0;
    for (int k = 0; k < n; ++k) {
      for (size_t i = 0; i < counts[k]; ++i, ++at) {
        ASSERT_EQ(all[at], k * 100000 + static_cast<int32_t>(i)) << "rank " << r;
      }
    }
  });
}

// Broadcasts `bytes` from every root in turn on rank r of n and checks every byte.
void BroadcastFromEachRoot(ShmTransport& t, int r, int n, size_t bytes) {
  for (int root = 0; root < n; ++root) {
    std::vector<uint8_t> data(bytes, static_cast<uint8_t>(r));
    if (r == root) {
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 31 + root);
    }
    t.Broadcast(data.data(), data.size(), root);
    for (size_t i = 0; i < data.size(); ++i) {
      ASSERT_EQ(data[i], static_cast<uint8_t>(i * 31 + root)) << "rank " << r << ", " << bytes << " bytes";
    }
  }
}

TEST_P(ShmOps, BroadcastFromEveryRoot) {
  const int n = size();
  RunRanks(n, [n](int r) { return SmallSlots(r, n); },
           [&](ShmTransport& t, int r) { BroadcastFromEachRoot(t, r, n, 9001); });
}

// One copy (receivers read the sender's memory) from 1 KiB to 1 MiB, where the kernel allows it
// (with more ranks than CPUs too, so that 3 and 4 ranks take it on a 2-CPU machine).
ShmOptions SingleCopyFrom1KiB(int rank, int size) {
  ShmOptions o = SmallSlots(rank, size);
  o.single_copy_broadcast_min_bytes = o.single_copy_allgather_min_bytes = 1024;
  o.single_copy_broadcast_max_bytes = o.single_copy_allgather_max_bytes = 1 << 20;
  o.single_copy_oversubscribed = true;
  return o;
}

// Runs `body` on n ranks; then checks that the ranks agreed on one copy, and skips the test
// (saying the slots carried every `what`) where this kernel refused it.
void RunSingleCopy(int n, const std::function<ShmOptions(int)>& options, const char* what,
                   const std::function<void(ShmTransport&, int)>& body) {
  std::atomic<int> single_copy{0};
  RunRanks(n, options, [&](ShmTransport& t, int r) {
    if (t.SingleCopyAvailable()) single_copy.fetch_add(1);
    body(t, r);
  });
  ASSERT_TRUE(single_copy.load() == 0 || single_copy.load() == n) << single_copy.load();
  if (single_copy.load() == 0) GTEST_SKIP() << "this kernel refuses process_vm_readv here: the slots carried every " << what;
}

// 9001 and 300000 bytes take the one-copy path, 1000 bytes (under the bound) and 2 MiB (over it,
// 512 rounds of the 4 KiB slot) the slots.
TEST_P(ShmOps, SingleCopyBroadcastFromEveryRoot) {
  const int n = size();
  // The ranks agree, and the results hold on either path.
  RunSingleCopy(n, [n](int r) { return SingleCopyFrom1KiB(r, n); }, "broadcast", [&](ShmTransport& t, int r) {
    for (size_t bytes : {size_t{1000}, size_t{9001}, size_t{300000}, size_t{2} << 20}) {
      BroadcastFromEachRoot(t, r, n, bytes);
      if (::testing::Test::HasFatalFailure()) return;
    }
  });
}

// Uneven parts with rank 1's empty; the largest parts (4 bytes x 700 x n) take the one-copy
// path, 10 x n elements the slots. Each rank's input lies apart from its output, or at its own
// place in it (an in-place allgather), or over another rank's place (then the slots carry it).
TEST_P(ShmOps, SingleCopyAllgatherOfUnevenPartsFromEveryKindOfInput) {
  const int n = size();
  RunSingleCopy(n, [n](int r) { return SingleCopyFrom1KiB(r, n); }, "allgather", [&](ShmTransport& t, int r) {
    for (size_t unit : {size_t{10}, size_t{700}}) {
      for (int where = 0; where < 3; ++where) {
        std::vector<size_t> counts;
        size_t total = 0, offset = 0;
        for (int k = 0; k < n; ++k) {
          counts.push_back(k == 1 ? 0 : unit * static_cast<size_t>(k + 1));
          if (k < r) offset += counts.back();
          total += counts.back();
        }
        // Room before the output for an input that overlaps rank 0's place from below.
        std::vector<int32_t> storage(total + unit * 8, -1), apart(counts[r]);
        int32_t* all = storage.data() + unit * 4;
        int32_t* mine = where == 0 ? apart.data() : where == 1 ? all + offset : all - 1;
        for (size_t i = 0; i < counts[r]; ++i) mine[i] = r * 100000 + static_cast<int32_t>(i);
        t.Allgatherv(mine, all, counts, sizeof(int32_t));
        size_t at = 0;
        for (int k = 0; k < n; ++k) {
          for (size_t i = 0; i < counts[k]; ++i, ++at) {
            ASSERT_EQ(all[at], k * 100000 + static_cast<int32_t>(i))
                << "rank " << r << ", input " << where << ", unit " << unit;
          }
        }
      }
    }
  });
}

// One-copy allreduces from 1 KiB up, in pieces of 320 bytes (each share takes several, the last
// one short, and pieces end inside elements of no size); 1000 bytes (under the bound) takes the
// slots. From 12000 bytes in chunks of 960 bytes (whole cache lines of elements: 960 float32s,
// the last chunk short and 4 ranks' shares uneven). In place and into a separate output, sums
// and maxima, a postscale.
ShmOptions SingleCopyAllreduceFrom1KiB(int rank, int size) {
  ShmOptions o = SmallSlots(rank, size);
  o.single_copy_allreduce_min_bytes = 1024;
  o.single_copy_allreduce_piece_bytes = 320;
  o.single_copy_allreduce_chunk_bytes = 1000;
  o.single_copy_allreduce_chunk_min_bytes = 12000;
  o.single_copy_allreduce_min_segment_bytes = 0;
  o.single_copy_oversubscribed = true;
  return o;
}

TEST_P(ShmOps, SingleCopyAllreduceInPlaceAndApart) {
  const int n = size();
  RunSingleCopy(n, [n](int r) { return SingleCopyAllreduceFrom1KiB(r, n); }, "allreduce", [&](ShmTransport& t, int r) {
    for (int64_t count : {int64_t{250}, int64_t{257}, int64_t{1000}, int64_t{10007}, int64_t{300001}}) {
      for (bool in_place : {true, false}) {
        std::vector<float> in(static_cast<size_t>(count)), apart(in_place ? 0 : in.size(), -1.0f);
        for (int64_t i = 0; i < count; ++i) in[i] = static_cast<float>((r + 1) * (i % 101));
        float* out = in_place ? in.data() : apart.data();
        t.AllreduceInto(in.data(), out, count, DataType::kFloat32, ReduceOp::kSum, 0.5);
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(out[i], static_cast<float>(n * (n + 1) / 2 * (i % 101)) * 0.5f)
              << "rank " << r << ", " << count << " elements, in place " << in_place << ", element " << i;
        }
        if (!in_place) {
          for (int64_t i = 0; i < count; ++i) ASSERT_EQ(in[i], static_cast<float>((r + 1) * (i % 101)));
        }
        std::vector<int32_t> x(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) x[i] = static_cast<int32_t>(((i + r) % n) * 1000 - i);
        t.Allreduce(x.data(), count, DataType::kInt32, ReduceOp::kMax);
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(x[i], static_cast<int32_t>((n - 1) * 1000 - i)) << "rank " << r << ", " << count << " elements, max";
        }
      }
    }
  });
}

// A fused allreduce's tensors (segments) with one copy: 4000 float32s cut into segments that
// differ per rank (reads go by logical position), one empty, every other one reduced in place.
// With more segments on rank 0 than its 4 KiB slot lists (170 fit), every rank takes the slots.
TEST_P(ShmOps, SingleCopyAllreduceOfSegmentsCutDifferentlyPerRank) {
  const int n = size();
  RunSingleCopy(n, [n](int r) { return SingleCopyAllreduceFrom1KiB(r, n); }, "allreduce", [&](ShmTransport& t, int r) {
    for (size_t pieces : {size_t{7}, size_t{400}}) {
      const int64_t count = 4000;
      std::vector<float> in(static_cast<size_t>(count)), apart(in.size(), -1.0f);
      for (int64_t i = 0; i < count; ++i) in[i] = static_cast<float>((r + 1) * (i % 89));
      // Rank 0 cuts `pieces` segments (400: too many to list); the others 7, at their own places.
      const size_t cuts = r == 0 ? pieces : 7;
      std::vector<BufferSegment> segments;
      size_t at = 0;
      for (size_t k = 0; k < cuts; ++k) {
        size_t elements = k + 1 == cuts ? in.size() - at : (in.size() / cuts) + (k * 13 + r * 29) % 50;
        if (k == 2) elements = 0;
        elements = std::min(elements, in.size() - at);
        float* out = k % 2 == 0 ? in.data() + at : apart.data() + at;
        segments.push_back({in.data() + at, out, elements * sizeof(float)});
        at += elements;
      }
      std::vector<char> scratch;
      t.AllreduceSegments(segments, count, DataType::kFloat32, ReduceOp::kSum, 1.0, scratch);
      for (const BufferSegment& s : segments) {
        const auto* out = static_cast<const float*>(s.out);
        const int64_t first = static_cast<const float*>(s.in) - in.data();
        for (size_t j = 0; j < s.bytes / sizeof(float); ++j) {
          const int64_t i = first + static_cast<int64_t>(j);
          ASSERT_EQ(out[j], static_cast<float>(n * (n + 1) / 2 * (i % 89)))
              << "rank " << r << ", " << pieces << " pieces, element " << i;
        }
      }
    }
  });
}

// The trial (one copy against the slots, timed at setup) leaves every rank with rank 0's answer,
// whichever it is on this machine, and collectives of both paths' sizes correct after it.
TEST_P(ShmOps, SingleCopyTrialGivesEveryRankTheSameAnswer) {
  const int n = size();
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::atomic<int> single_copy{0};
    RunRanks(n, [n](int r) {
      ShmOptions o = SingleCopyAllreduceFrom1KiB(r, n);
      o.single_copy_trial_bytes = 64 << 10;
      return o;
    }, [&](ShmTransport& t, int r) {
      if (t.SingleCopyAvailable()) single_copy.fetch_add(1);
      for (int64_t count : {int64_t{100}, int64_t{30001}}) {
        std::vector<float> x(static_cast<size_t>(count), static_cast<float>(r + 1));
        t.Allreduce(x.data(), count, DataType::kFloat32, ReduceOp::kSum);
        for (float v : x) ASSERT_EQ(v, static_cast<float>(n * (n + 1) / 2)) << "rank " << r << ", " << count;
      }
    });
    ASSERT_TRUE(single_copy.load() == 0 || single_copy.load() == n) << single_copy.load();
  }
}

// A size trial (one copy against the slots on a size class's first calls) leaves every rank with
// rank 0's verdict, here where the other ranks timed it the other way round, only once its 17
// calls (a warm-up and eight pairs) are done, and for its own class alone (in place is another);
// every call's result is right, whichever way.
TEST_P(ShmOps, SizeTrialGivesEveryRankRankZerosVerdict) {
  const int n = size();
  for (int slots_win : {0, 1}) {
    std::vector<std::vector<int>> seen(static_cast<size_t>(n));
    RunSingleCopy(n, [n, slots_win](int r) {
      ShmOptions o = SingleCopyAllreduceFrom1KiB(r, n);
      o.single_copy_allreduce_size_trial_min_bytes = 40000;
      // Rank 0 finds the slots faster where slots_win; every other rank finds the opposite.
      const bool faster = (r == 0) == (slots_win == 1);
      o.size_trial_seconds = [faster](bool slots, double) { return slots == faster ? 1.0 : 2.0; };
      return o;
    }, "allreduce", [&](ShmTransport& t, int r) {
      std::vector<int>& mine = seen[static_cast<size_t>(r)];
      const int64_t count = 12000;  // 48000 bytes: the first class (40000 up to 80000)
      for (int call = 0; call < 18; ++call) {
        std::vector<float> in(static_cast<size_t>(count)), out(in.size(), -1.0f);
        for (int64_t i = 0; i < count; ++i) in[i] = static_cast<float>((r + 1) * (i % 97));
        t.AllreduceInto(in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, 1.0);
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(out[i], static_cast<float>(n * (n + 1) / 2 * (i % 97))) << "rank " << r << ", call " << call;
        }
        mine.push_back(t.SizeTrialVerdict(48000, false));
      }
      mine.push_back(t.SizeTrialVerdict(79999, false));
      mine.push_back(t.SizeTrialVerdict(48000, true));   // in place: a class of its own, untried
      mine.push_back(t.SizeTrialVerdict(80000, false));  // the next class: untried
      mine.push_back(t.SizeTrialVerdict(39999, false));  // under the trials
      for (int call = 0; call < 17; ++call) {  // in place, its own 17 calls
        std::vector<float> x(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) x[i] = static_cast<float>((r + 1) * (i % 97));
        t.AllreduceInto(x.data(), x.data(), count, DataType::kFloat32, ReduceOp::kSum, 1.0);
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(x[i], static_cast<float>(n * (n + 1) / 2 * (i % 97))) << "rank " << r << ", in place, call " << call;
        }
      }
      mine.push_back(t.SizeTrialVerdict(48000, true));
      // A fused allreduce (four tensors, 96000 bytes: the next class) trials through its own calls.
      for (int call = 0; call < 17; ++call) {
        std::vector<float> in(24000), out(in.size(), -1.0f);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((r + 1) * (i % 89));
        std::vector<BufferSegment> segments;
        for (size_t k = 0; k < 4; ++k) segments.push_back({in.data() + k * 6000, out.data() + k * 6000, 6000 * sizeof(float)});
        std::vector<char> scratch;
        t.AllreduceSegments(segments, 24000, DataType::kFloat32, ReduceOp::kSum, 1.0, scratch);
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_EQ(out[i], static_cast<float>(n * (n + 1) / 2 * (i % 89))) << "rank " << r << ", fused, call " << call;
        }
      }
      mine.push_back(t.SizeTrialVerdict(96000, false));
    });
    for (int r = 0; r < n; ++r) {
      std::vector<int> expected(16, -1);
      expected.insert(expected.end(), {slots_win, slots_win, slots_win, -1, -1, -1, slots_win, slots_win});
      EXPECT_EQ(seen[static_cast<size_t>(r)], expected)
          << "rank " << r << ", slots faster on rank 0: " << slots_win;
    }
  }
}

TEST_P(ShmOps, SingleCopyOffLeavesTheProbeOut) {
  const int n = size();
  RunRanks(n, [n](int r) {
    ShmOptions o = SmallSlots(r, n);
    o.single_copy_broadcast_max_bytes = o.single_copy_allgather_max_bytes = o.single_copy_allreduce_max_bytes = 0;
    o.single_copy_oversubscribed = true;
    return o;
  }, [&](ShmTransport& t, int r) {
    EXPECT_FALSE(t.SingleCopyAvailable()) << "rank " << r;
    std::vector<uint8_t> data(100000, static_cast<uint8_t>(r == 0 ? 7 : 0));
    t.Broadcast(data.data(), data.size(), 0);
    for (uint8_t v : data) ASSERT_EQ(v, 7) << "rank " << r;
  });
}

TEST_P(ShmOps, AlltoallvDeliversEveryBlockInRankOrder) {
  const int n = size();
  RunRanks(n, [n](int r) { return SmallSlots(r, n); }, [&](ShmTransport& t, int r) {
    // Rank s sends (s + 1) * (d + 1) * 500 int32s to rank d, each tagged (s, d, i).
    auto count = [](int s, int d) { return static_cast<int64_t>((s + 1) * (d + 1) * 500); };
    auto tag = [](int s, int d, int64_t i) { return static_cast<int32_t>(s * 10000000 + d * 1000000 + i); };
    std::vector<int64_t> send_counts, recv_counts;
    std::vector<int32_t> in, out;
    for (int d = 0; d < n; ++d) {
      send_counts.push_back(count(r, d));
      recv_counts.push_back(count(d, r));
      for (int64_t i = 0; i < count(r, d); ++i) in.push_back(tag(r, d, i));
    }
    int64_t total = 0;
    for (int64_t c : recv_counts) total += c;
    out.resize(static_cast<size_t>(total));
    t.Alltoallv(in.data(), send_counts, out.data(), recv_counts, sizeof(int32_t));
    size_t at = 0;
    for (int s = 0; s < n; ++s) {
      for (int64_t i = 0; i < count(s, r); ++i, ++at) ASSERT_EQ(out[at], tag(s, r, i));
    }
  });
}

TEST_P(ShmOps, ControlPlaneCarriesLongAndEmptyMessages) {
  const int n = size();
  RunRanks(n, [n](int r) { return SmallSlots(r, n); }, [&](ShmTransport& t, int r) {
    for (int trial = 0; trial < 3; ++trial) {
      // Rank r sends r * 5000 bytes (rank 0: none), several slots for the larger ranks.
      std::vector<char> mine(static_cast<size_t>(r) * 5000 + trial);
      for (size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<char>(i + r);
      auto all = t.GatherToRoot(mine);
      if (r == 0) {
        ASSERT_EQ(all.size(), static_cast<size_t>(n));
        for (int k = 0; k < n; ++k) {
          ASSERT_EQ(all[k].size(), static_cast<size_t>(k) * 5000 + trial);
          for (size_t i = 0; i < all[k].size(); ++i) ASSERT_EQ(all[k][i], static_cast<char>(i + k));
        }
      } else {
        ASSERT_TRUE(all.empty());
      }
      std::vector<char> reply;
      if (r == 0) reply.assign(10000 + trial, static_cast<char>(7 + trial));
      std::vector<char> got = t.BroadcastFromRoot(reply);
      ASSERT_EQ(got, std::vector<char>(10000 + trial, static_cast<char>(7 + trial)));
      t.Barrier();
    }
  });
}

TEST_P(ShmOps, DefaultSlotsHandleAMultiRoundAllreduce) {
  const int n = size();
  const int64_t count = 3 * (1 << 20) / 4 + 13;  // 3 MiB of float32: several 1 MiB rounds
  RunRanks(n, [n](int r) { return TestShmOptions(r, n, "shmtest-big"); }, [&](ShmTransport& t, int r) {
    std::vector<float> data(static_cast<size_t>(count), static_cast<float>(r + 1));
    t.Allreduce(data.data(), count, DataType::kFloat32, ReduceOp::kSum);
    for (int64_t i = 0; i < count; ++i) ASSERT_EQ(data[i], static_cast<float>(n * (n + 1) / 2));
  });
}

// AllreduceInto reads the input where it lies, writes a separate output and scales each rank's
// share as it reduces: the input is left as it was, and the output is exact (postscale 0.25 and
// sums of small integers are exact in float32). With cached and with streamed result stores.
TEST_P(ShmOps, AllreduceIntoLeavesTheInputAndScalesTheResult) {
  const int n = size();
  for (const bool stream : {false, true})
  for (int64_t count : kCounts) {
    RunRanks(n, [n, stream](int r) { return SmallSlots(r, n, stream); }, [&](ShmTransport& t, int r) {
      std::vector<float> in(static_cast<size_t>(count)), out(static_cast<size_t>(count), -1.0f);
      for (int64_t i = 0; i < count; ++i) in[i] = static_cast<float>((r + 1) * (i % 13));
      const std::vector<float> before = in;
      t.AllreduceInto(in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, 0.25);
      ASSERT_EQ(in, before) << "rank " << r;
      for (int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(out[i], static_cast<float>(n * (n + 1) / 2 * (i % 13)) * 0.25f)
            << "rank " << r << " element " << i << " of " << count << (stream ? " streamed" : "");
      }
      // In place, as the engine's fused path calls it.
      t.AllreduceInto(in.data(), in.data(), count, DataType::kFloat32, ReduceOp::kSum, 0.5);
      for (int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(in[i], static_cast<float>(n * (n + 1) / 2 * (i % 13)) * 0.5f)
            << "rank " << r << " element " << i << " of " << count;
      }
    });
  }
}

// A fused allreduce over segments (tensors of uneven sizes, an empty one, one reduced in place):
// each output gets its exact scaled sum, inputs are left alone, in one direct round, one
// reduce-scatter round and many rounds (whose boundaries fall inside tensors). Over the shared
// memory transport, which reads and writes the segments where they lie (with cached and with
// streamed result stores), and over a forwarding transport, which takes Transport's default (a
// scratch buffer).
TEST_P(ShmOps, AllreduceSegmentsWritesEachTensorsScaledSum) {
  const int n = size();
  for (const bool stream : {false, true})
  for (const bool forwarded : {false, true}) {
    for (const int64_t scale : {1, 7, 40}) {
      const std::vector<int64_t> counts = {3 * scale, 0, 64 * scale, 1, 17 * scale};
      int64_t total = 0;
      for (int64_t c : counts) total += c;
      RunRanks(n, [n, stream](int r) { return SmallSlots(r, n, stream); }, [&](ShmTransport& shm, int r) {
        ForwardingTransport wrapper(shm);
        Transport& t = forwarded ? static_cast<Transport&>(wrapper) : shm;
        std::vector<std::vector<float>> in, out;
        std::vector<BufferSegment> segments;
        for (size_t k = 0; k < counts.size(); ++k) {
          in.emplace_back(static_cast<size_t>(counts[k]));
          for (int64_t i = 0; i < counts[k]; ++i) in[k][i] = static_cast<float>((r + 1) * (k + 1) + i % 5);
          out.emplace_back(static_cast<size_t>(counts[k]), -1.0f);
        }
        const std::vector<std::vector<float>> before = in;
        for (size_t k = 0; k < counts.size(); ++k) {
          // The third tensor is reduced in place.
          float* dst = k == 2 ? in[k].data() : out[k].data();
          segments.push_back({in[k].data(), dst, static_cast<size_t>(counts[k]) * sizeof(float)});
        }
        std::vector<char> scratch;
        t.AllreduceSegments(segments, total, DataType::kFloat32, ReduceOp::kSum, 0.5, scratch);
        for (size_t k = 0; k < counts.size(); ++k) {
          const float* got = k == 2 ? in[k].data() : out[k].data();
          if (k != 2) ASSERT_EQ(in[k], before[k]) << "rank " << r << " tensor " << k;
          for (int64_t i = 0; i < counts[k]; ++i) {
            const float sum = static_cast<float>(n * (n + 1) / 2 * (k + 1) + n * (i % 5));
            ASSERT_EQ(got[i], sum * 0.5f) << (forwarded ? "default" : "shm") << (stream ? " streamed" : "") << " rank " << r
                                          << " tensor " << k << " element " << i << " of " << total;
          }
        }
      });
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, ShmOps, ::testing::Values(2, 3, 4));

}  // namespace
}  // namespace kolo

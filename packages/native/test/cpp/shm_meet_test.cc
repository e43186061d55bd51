// How a caller meets its peers' callers on the shared-memory transport (the engine's
// TryDriveOnce): by announcing its next collective, or by publishing its part of an in-place
// round ahead of the wait.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "shm_test_util.h"

namespace kolo {
namespace {

// Lines the ranks' threads up: step(k) returns once all kRanks have reached step k (from 1).
class Steps {
 public:
  explicit Steps(int ranks) : ranks_(ranks) {}
  void operator()(int k) {
    arrived_.fetch_add(1);
    while (arrived_.load() < ranks_ * k) std::this_thread::yield();
  }

 private:
  int ranks_;
  std::atomic<int> arrived_{0};
};

// Callers announce their next collective so that peers' callers can run it too (the engine's
// TryDriveOnce): a rank sees its peers ready only once every other rank announced that same
// collective or already waits in it; a withdrawn or outdated announcement does not count.
TEST(ShmAnnounce, PeersAreReadyOnlyWhenEveryOtherRankAnnouncedThisCollective) {
  constexpr int kRanks = 3;
  Steps step(kRanks);
  std::vector<std::vector<bool>> seen(kRanks);
  RunRanks(kRanks, [](int r) { return TestShmOptions(r, kRanks, "shmtest-announce"); },
           [&](ShmTransport& t, int r) {
             auto& mine = seen[static_cast<size_t>(r)];
             mine.push_back(t.PeersReady());  // 0: nobody announced
             step(1);
             if (r != 2) EXPECT_TRUE(t.AnnounceNext(true));
             step(2);
             mine.push_back(t.PeersReady());  // 1: ranks 0 and 1 announced
             step(3);
             if (r == 2) t.AnnounceNext(true);
             step(4);
             mine.push_back(t.PeersReady());  // 2: all announced
             step(5);
             if (r == 1) t.AnnounceNext(false);
             step(6);
             mine.push_back(t.PeersReady());  // 3: rank 1 withdrew
             step(7);
             t.Barrier();  // every rank's announcement is now for a collective already run
             mine.push_back(t.PeersReady());  // 4: outdated announcements
             step(8);
           });
  const std::vector<std::vector<bool>> want = {
      {false, false, true, false, false},
      {false, false, true, true, false},
      {false, true, true, false, false},
  };
  EXPECT_EQ(seen, want);
}

// A rank may publish its part of an in-place round before it waits (PublishInPlace): it then
// sees, without blocking, whether every other rank has published too (InPlaceArrived), and the
// round's ExchangeInPlace only waits and returns every rank's bytes. A round whose rank did not
// publish ahead publishes in ExchangeInPlace, as before; both kinds mix across rounds and ranks.
// (InPlaceArrived tells something only between a rank's PublishInPlace and its ExchangeInPlace.)
TEST(ShmPublish, ARankThatPublishedAheadSeesWhenEveryPeerHasAndReadsTheirBytes) {
  constexpr int kRanks = 3;
  constexpr size_t kBytes = 256;
  Steps step(kRanks);
  std::vector<std::vector<bool>> seen(kRanks);
  RunRanks(kRanks, [](int r) { return TestShmOptions(r, kRanks, "shmtest-publish"); },
           [&](ShmTransport& t, int r) {
             ASSERT_GE(t.InPlaceBytes(), kBytes);
             auto& mine = seen[static_cast<size_t>(r)];
             // Round `round`'s byte i of rank k's part.
             auto byte = [](int round, int k, size_t i) { return static_cast<char>(round * 31 + k * 7 + static_cast<int>(i % 5)); };
             auto check = [&](int round, const char* const* all) {
               for (int k = 0; k < kRanks; ++k) {
                 for (size_t i = 0; i < kBytes; ++i) {
                   ASSERT_EQ(all[k][i], byte(round, k, i)) << "round " << round << " rank " << k << " byte " << i;
                 }
               }
             };
             auto write = [&](int round) {
               char* box = t.InPlaceOutbox();
               for (size_t i = 0; i < kBytes; ++i) box[i] = byte(round, r, i);
             };
             // Round 1: ranks 0 and 1 publish ahead, then rank 2 does.
             write(1);
             step(1);
             if (r != 2) t.PublishInPlace();
             step(2);
             if (r != 2) mine.push_back(t.InPlaceArrived());  // 0: rank 2 has not published
             step(3);
             if (r == 2) t.PublishInPlace();
             step(4);
             mine.push_back(t.InPlaceArrived());  // 1 (rank 2: 0): everyone has
             check(1, t.ExchangeInPlace("round 1"));
             // Round 2: nobody publishes ahead.
             write(2);
             check(2, t.ExchangeInPlace("round 2"));
             // Round 3: only rank 1 publishes ahead; it sees the others once they have waited.
             write(3);
             step(5);
             if (r == 1) {
               t.PublishInPlace();
               mine.push_back(t.InPlaceArrived());  // 2: nobody else has
             }
             step(6);
             check(3, t.ExchangeInPlace("round 3"));
           });
  const std::vector<std::vector<bool>> want = {
      {false, true},
      {false, true, false},
      {true},
  };
  EXPECT_EQ(seen, want);
}

}  // namespace
}  // namespace kolo

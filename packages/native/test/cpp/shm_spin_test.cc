// How long a waiting rank spins before it yields: by default not at all when the group has more
// ranks than this process has CPUs, where the peer it waits for may need this very CPU.
#include <gtest/gtest.h>
#include <sched.h>

#include <array>
#include <thread>
#include <vector>

#include "memory_store.h"
#include "shm_test_util.h"
#include "transport/shm_channel.h"

namespace kolo {
namespace {

TEST(ShmSpins, RanksThatEachHaveACpuSpinFirstAndMoreRanksThanCpusYieldAtOnce) {
  EXPECT_GT(ShmSpinsFor(2, 2), 0);
  EXPECT_GT(ShmSpinsFor(4, 16), 0);
  EXPECT_EQ(ShmSpinsFor(3, 2), 0);
  EXPECT_EQ(ShmSpinsFor(4, 2), 0);
}

// Each rank's channel and the spins it chose, on `size` threads.
std::vector<int> ChosenSpins(int size, int spins) {
  MemoryStore store;
  std::vector<int> chosen(static_cast<size_t>(size), -2);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      ShmOptions o = TestShmOptions(r, size, "shmtest-spins-" + std::to_string(spins));
      o.spins = spins;
      o.slot_bytes = 4096;
      ShmChannel channel(store, o);
      chosen[static_cast<size_t>(r)] = channel.spins();
      for (int i = 0; i < 100; ++i) channel.Sync("test");  // waits work whatever the spins
    });
  }
  for (auto& t : threads) t.join();
  return chosen;
}

TEST(ShmSpins, ChannelsTakeTheGivenSpinsOrTheDefaultForTheirSizeAndThisProcesssCpus) {
  cpu_set_t set;
  ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  const int cpus = CPU_COUNT(&set);
  EXPECT_EQ(ChosenSpins(3, 0), std::vector<int>(3, 0));
  EXPECT_EQ(ChosenSpins(3, 7), std::vector<int>(3, 7));
  EXPECT_EQ(ChosenSpins(3, -1), std::vector<int>(3, ShmSpinsFor(3, cpus)));
}

// The engine's caller yields while it waits for the peers' announcements as the barriers do.
TEST(ShmSpins, TransportsYieldWhileWaitingWhereTheirChannelsDoNotSpin) {
  for (int spins : {0, 7}) {
    std::vector<int> yields(2, -1);
    RunRanks(2, [spins](int r) {
      ShmOptions o = TestShmOptions(r, 2, "shmtest-yield-" + std::to_string(spins));
      o.spins = spins;
      return o;
    }, [&](ShmTransport& t, int r) { yields[static_cast<size_t>(r)] = t.YieldWhileWaiting() ? 1 : 0; });
    EXPECT_EQ(yields, std::vector<int>(2, spins == 0 ? 1 : 0)) << spins << " spins";
  }
}

}  // namespace
}  // namespace kolo

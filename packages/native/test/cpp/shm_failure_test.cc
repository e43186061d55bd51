// The shared-memory transport's lifecycle: nothing left in /dev/shm, and dead, silent or departed
// peers become a TransportError naming the rank instead of a hang.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>

#include "shm_test_util.h"

namespace kolo {
namespace {

using Clock = std::chrono::steady_clock;

TEST(ShmLifecycle, TheSegmentNameIsGoneOnceEveryRankAttached) {
  RunRanks(3, [](int r) { return TestShmOptions(r, 3, "shmtest-clean"); },
           [](ShmTransport& t, int) {
             t.Barrier();
             EXPECT_EQ(ShmLeftovers("shmtest-clean"), std::vector<std::string>{});
           });
  EXPECT_EQ(ShmLeftovers("shmtest-clean"), std::vector<std::string>{});
}

TEST(ShmLifecycle, AFailedSetupLeavesNothingBehind) {
  MemoryStore store;
  ShmOptions o = TestShmOptions(0, 2, "shmtest-lonely");
  o.timeout = std::chrono::milliseconds(200);
  try {
    ShmTransport t(store, o);  // rank 1 never comes
    FAIL() << "expected a timeout";
  } catch (const TransportError& e) {
    EXPECT_TRUE(e.timed_out());
    EXPECT_NE(std::string(e.what()).find("rank(s) 1 did not attach"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ShmLeftovers("shmtest-lonely"), std::vector<std::string>{});
}

TEST(ShmFailure, ASilentPeerTimesOutNamingThatRank) {
  std::atomic<bool> done{false};
  std::exception_ptr error;
  RunRanks(2,
           [](int r) {
             ShmOptions o = TestShmOptions(r, 2, "shmtest-silent");
             o.timeout = std::chrono::milliseconds(300);
             return o;
           },
           [&](ShmTransport& t, int r) {
             if (r == 0) {
               // Alive but silent: stays attached until rank 1 has given up.
               while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
               return;
             }
             try {
               t.Barrier();
             } catch (const TransportError& e) {
               EXPECT_TRUE(e.timed_out());
               EXPECT_EQ(e.peer_rank(), 0);
               EXPECT_NE(std::string(e.what()).find("timed out after 300 ms waiting for rank 0"),
                         std::string::npos)
                   << e.what();
               error = std::current_exception();
             }
             done = true;
           });
  EXPECT_TRUE(error);
}

TEST(ShmFailure, APeerThatClosedItsTransportFailsWaitersAtOnce) {
  RunRanks(2, [](int r) { return TestShmOptions(r, 2, "shmtest-closed"); },
           [](ShmTransport& t, int r) {
             if (r == 0) return;  // destroys its transport without another collective
             const auto start = Clock::now();
             try {
               t.Barrier();
               ADD_FAILURE() << "expected a failure";
             } catch (const TransportError& e) {
               EXPECT_EQ(e.peer_rank(), 0);
               EXPECT_FALSE(e.timed_out());
               EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
             }
           });
}

// Rank 1 is a forked process that attaches and then dies by SIGKILL; ranks 0 and 2 (threads)
// must fail their next collective naming rank 1 well before the 20 s timeout.
TEST(ShmFailure, AKilledPeerProcessFailsTheOthersNamingIt) {
  MemoryStore store;
  auto options = [](int r) {
    ShmOptions o = TestShmOptions(r, 3, "shmtest-killed");
    o.timeout = std::chrono::milliseconds(20000);
    return o;
  };
  std::vector<std::exception_ptr> errors(3);
  std::vector<int> failed(3, -2);
  auto rank = [&](int r) {
    try {
      ShmTransport t(store, options(r));
      const auto start = Clock::now();
      try {
        float x = 1.0f;
        t.Allreduce(&x, 1, DataType::kFloat32, ReduceOp::kSum);
      } catch (const TransportError& e) {
        failed[r] = e.peer_rank();
        EXPECT_LT(Clock::now() - start, std::chrono::seconds(5)) << e.what();
      }
    } catch (...) {
      errors[r] = std::current_exception();
    }
  };
  std::thread r0(rank, 0);
  // The segment exists once rank 0 published its name; only then may the child attach.
  ASSERT_TRUE(store.Get(options(0).store_key, std::chrono::seconds(10)));
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      ShmTransport t(store, options(1));
    } catch (...) {
    }
    ::raise(SIGKILL);
  }
  std::thread r2(rank, 2);
  r0.join();
  r2.join();
  int status = 0;
  ::waitpid(child, &status, 0);
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(failed[0], 1);
  EXPECT_EQ(failed[2], 1);
  EXPECT_EQ(ShmLeftovers("shmtest-killed"), std::vector<std::string>{});
}

// A broadcast's receivers read the root's memory (one copy); an address the root does not map
// (or a root that is gone) fails the read with a TransportError naming the root.
TEST(ShmFailure, AnUnreadablePeerAddressFailsNamingThatRank) {
  MemoryStore store;
  ShmChannel channel(store, TestShmOptions(0, 1, "shmtest-readpeer"));
  char buffer[64];
  try {
    channel.ReadPeer(0, buffer, reinterpret_cast<const void*>(uintptr_t{64}), sizeof buffer, "broadcast");
    FAIL() << "reading address 64 succeeded";
  } catch (const TransportError& e) {
    EXPECT_EQ(e.peer_rank(), 0);
    EXPECT_EQ(std::string(e.what()).rfind("broadcast: could not read rank 0's memory (", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace kolo

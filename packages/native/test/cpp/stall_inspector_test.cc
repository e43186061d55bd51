#include <gtest/gtest.h>

#include "engine/stall_inspector.h"

namespace kolo {

TEST(StallInspector, WarnsOncePerCheckIntervalListingMissingRanks) {
  StallInspector inspector({1000, 0});
  std::vector<StallItem> items = {{"a", 1500, {1, 2}}, {"b", 200, {2}}, {"c", 1000, {2}}};
  StallVerdict v = inspector.Inspect(items, 10'000);
  EXPECT_EQ(v.warning,
            "One or more tensors were submitted to be reduced, gathered or broadcasted by subset "
            "of ranks and are waiting for remainder of ranks for more than 1 seconds. This may "
            "indicate that different ranks are trying to submit different tensors or that only "
            "subset of ranks is submitting tensors, which will cause deadlock. \nMissing ranks:"
            "\n1: [a]\n2: [a, c]");
  EXPECT_FALSE(v.shutdown);
  EXPECT_EQ(inspector.Inspect(items, 10'500).warning, "");  // within the interval: quiet
  EXPECT_NE(inspector.Inspect(items, 11'000).warning, "");
}

TEST(StallInspector, MarksAndStopsRanksPastTheShutdownTime) {
  StallInspector inspector({1000, 3000});
  StallVerdict v = inspector.Inspect({{"x", 3500, {3}}, {"y", 1200, {1}}}, 5000);
  EXPECT_TRUE(v.shutdown);
  EXPECT_EQ(v.stalled_ranks, std::vector<int>{3});
  EXPECT_NE(v.warning.find("\n1: [y]\n3!: [x]\nOne or more rank (marked by \"!\") is stalled for "
                           "longer than 3 seconds. Will shutdown."),
            std::string::npos);
}

TEST(StallInspector, ShowsAtMostSixNamesPerRank) {
  StallInspector inspector({10, 0});
  std::vector<StallItem> items;
  for (int i = 0; i < 8; ++i) items.push_back({"t" + std::to_string(i), 20, {0}});
  EXPECT_NE(inspector.Inspect(items, 100).warning.find("0: [t0, t1, t2, t3, t4, t5 ...]"),
            std::string::npos);
}

TEST(StallInspector, DisabledOrMisconfiguredStaysQuietOrSaysWhy) {
  StallInspector off({0, 0});
  EXPECT_EQ(off.Inspect({{"a", 99'999, {1}}}, 100'000).warning, "");
  StallInspector odd({5000, 1000});
  EXPECT_EQ(odd.Inspect({}, 0).warning,
            "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS is less than HOROVOD_STALL_CHECK_TIME_SECONDS, "
            "will not shutdown.");
}

}  // namespace kolo

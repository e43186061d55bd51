#include <gtest/gtest.h>

#include <map>

#include "engine/coordinator.h"

namespace kolo {
namespace {

Request Make(int rank, const std::string& name, RequestType type = RequestType::kAllreduce,
             DataType dtype = DataType::kFloat32, std::vector<int64_t> shape = {4}) {
  Request r;
  r.rank = rank;
  r.name = name;
  r.type = type;
  r.dtype = dtype;
  r.shape = std::move(shape);
  return r;
}

std::vector<RequestList> Lists(int size) { return std::vector<RequestList>(size); }

std::string OnlyError(const ResponseList& out) {
  EXPECT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].type, RequestType::kError);
  return out.responses[0].error_message;
}

}  // namespace

TEST(Coordinator, WaitsForEveryRankThenRespondsOnce) {
  Coordinator c(2, 1 << 20);
  auto lists = Lists(2);
  lists[0].requests = {Make(0, "a")};
  EXPECT_TRUE(c.Compute(lists).responses.empty());
  EXPECT_EQ(c.PendingNames(), std::vector<std::string>{"a"});
  lists = Lists(2);
  lists[1].requests = {Make(1, "a")};
  ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].names, std::vector<std::string>{"a"});
  EXPECT_EQ(out.responses[0].sizes, std::vector<int64_t>{4});
  EXPECT_TRUE(c.PendingNames().empty());
}

TEST(Coordinator, MatchesByNameNotOrder) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[0].requests = {Make(0, "x"), Make(0, "y")};
  lists[1].requests = {Make(1, "y"), Make(1, "x")};
  ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 2u);
  EXPECT_EQ(out.responses[0].names[0], "x");  // coordinator's arrival order
  EXPECT_EQ(out.responses[1].names[0], "y");
}

TEST(Coordinator, FusesCompatibleAllreducesUnderThreshold) {
  Coordinator c(2, 40);  // room for two 16-byte tensors, not three
  auto lists = Lists(2);
  for (int r = 0; r < 2; ++r) {
    lists[r].requests = {Make(r, "a"), Make(r, "b"), Make(r, "i", RequestType::kAllreduce,
                                                          DataType::kInt32),
                         Make(r, "c")};
  }
  ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 3u);
  EXPECT_EQ(out.responses[0].names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(out.responses[1].names, (std::vector<std::string>{"i"}));
  EXPECT_EQ(out.responses[2].names, (std::vector<std::string>{"c"}));
}

TEST(Coordinator, MismatchedDtypeMessage) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[0].requests = {Make(0, "a")};
  lists[1].requests = {Make(1, "a", RequestType::kAllreduce, DataType::kInt32)};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched data types: One rank had type float32, but another rank had type int32.");
}

TEST(Coordinator, MismatchedOperationMessage) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[0].requests = {Make(0, "a")};
  lists[1].requests = {Make(1, "a", RequestType::kAllgather)};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched operations: One rank did an ALLREDUCE, but another rank did an "
            "ALLGATHER.");
}

TEST(Coordinator, MismatchedShapeMessage) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[0].requests = {Make(0, "a", RequestType::kAllreduce, DataType::kFloat32, {17, 17, 17})};
  lists[1].requests = {Make(1, "a", RequestType::kAllreduce, DataType::kFloat32, {18, 18, 18})};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [17, 17, 17], "
            "but another rank sent a tensor of shape [18, 18, 18].");
}

TEST(Coordinator, PackedGroupsAreComparedPartByPart) {
  // Parts [2, 3] and [4] on rank 0; rank 1 swaps the first part's dimensions, then sends three
  // parts: the first difference is named, before the total (the same 10 elements) is compared.
  const auto packed = [](int rank, const std::string& name, std::vector<int64_t> parts) {
    Request r = Make(rank, name, RequestType::kAllreduce, DataType::kFloat32, {10});
    r.parts = std::move(parts);
    return r;
  };
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[0].requests = {packed(0, "g", {2, 2, 3, 1, 4}), packed(0, "h", {2, 2, 3, 1, 4}),
                       packed(0, "ok", {2, 2, 3, 1, 4})};
  lists[1].requests = {packed(1, "g", {2, 3, 2, 1, 4}), packed(1, "h", {1, 6, 1, 2, 1, 2}),
                       packed(1, "ok", {2, 2, 3, 1, 4})};
  const ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 3u);
  std::map<std::string, std::string> errors;
  for (const Response& r : out.responses) {
    if (r.type == RequestType::kError) errors[r.names[0]] = r.error_message;
  }
  EXPECT_EQ(errors["g"],
            "Mismatched ALLREDUCE tensor shapes: One rank sent tensor 1 of 2 in the group with "
            "shape [2, 3], but another rank sent it with shape [3, 2].");
  EXPECT_EQ(errors["h"],
            "Mismatched ALLREDUCE tensor shapes: One rank sent a group of 2 tensors, but another "
            "rank sent a group of 3 tensors.");
  EXPECT_EQ(errors.count("ok"), 0u);
}

TEST(Coordinator, MismatchedScaleAndOpMessages) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  Request a = Make(0, "s"), b = Make(1, "s");
  a.postscale = 0.5;
  lists[0].requests = {a};
  lists[1].requests = {b};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched prescale and/or postscale factors: One rank sent factors (1, 0.5), but "
            "another rank sent factors (1, 1).");
  lists = Lists(2);
  a = Make(0, "o");
  b = Make(1, "o");
  a.reduce_op = ReduceOp::kAverage;
  lists[0].requests = {a};
  lists[1].requests = {b};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched reduction operation: One rank sent reduction op 0, but another rank "
            "sent reduction op 1.");
}

TEST(Coordinator, AllgatherCollectsFirstDimsAndChecksTheRest) {
  Coordinator c(3, 0);
  auto lists = Lists(3);
  for (int r = 0; r < 3; ++r) {
    lists[r].requests = {Make(r, "g", RequestType::kAllgather, DataType::kInt8, {r, 2})};
  }
  ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].sizes, (std::vector<int64_t>{0, 1, 2}));
  lists = Lists(3);
  for (int r = 0; r < 3; ++r) {
    lists[r].requests = {
        Make(r, "h", RequestType::kAllgather, DataType::kInt8, {1, r == 2 ? 4 : 3})};
  }
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched ALLGATHER tensor shapes: One rank sent a tensor with dimension 1 equal "
            "to 3, but another rank sent a tensor with dimension 1 equal to 4.");
}

TEST(Coordinator, RankZeroTensorsCannotBeGathered) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  for (int r = 0; r < 2; ++r) {
    lists[r].requests = {Make(r, "s", RequestType::kAllgather, DataType::kFloat32, {})};
  }
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Process-set rank zero tried to ALLGATHER a rank-zero tensor.");
}

TEST(Coordinator, BroadcastRootMismatchMessage) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  Request a = Make(0, "b", RequestType::kBroadcast), b = Make(1, "b", RequestType::kBroadcast);
  b.root = 1;
  lists[0].requests = {a};
  lists[1].requests = {b};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Mismatched BROADCAST root ranks: One rank specified root rank 0, but another rank "
            "specified root rank 1.");
}

TEST(Coordinator, JoinedRanksCountAsReadyAndLastJoinerIsReported) {
  Coordinator c(3, 0);
  auto lists = Lists(3);
  Request join;
  join.type = RequestType::kJoin;
  join.rank = 2;
  lists[2].requests = {join};
  lists[0].requests = {Make(0, "a")};
  lists[1].requests = {Make(1, "a")};
  ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].names[0], "a");
  lists = Lists(3);
  Request g = Make(0, "g", RequestType::kAllgather);
  lists[0].requests = {g};
  g.rank = 1;
  lists[1].requests = {g};
  EXPECT_EQ(OnlyError(c.Compute(lists)), "Allgather is not supported with Join at this time.");
  lists = Lists(3);
  join.rank = 0;
  lists[0].requests = {join};
  join.rank = 1;
  lists[1].requests = {join};
  out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].type, RequestType::kJoin);
  EXPECT_EQ(out.responses[0].last_joined_rank, 1);
}

TEST(Coordinator, GroupWaitsForAllMembers) {
  Coordinator c(2, 1 << 20);
  auto lists = Lists(2);
  for (int r = 0; r < 2; ++r) {
    Request a = Make(r, "g_1of2"), b = Make(r, "g_2of2");
    a.group = b.group = "g#group";
    a.group_size = b.group_size = 2;
    lists[r].requests = {a};
    if (r == 0) lists[r].requests.push_back(b);
  }
  EXPECT_TRUE(c.Compute(lists).responses.empty());
  lists = Lists(2);
  Request b = Make(1, "g_2of2");
  b.group = "g#group";
  b.group_size = 2;
  lists[1].requests = {b};
  ResponseList out = c.Compute(lists);
  ASSERT_EQ(out.responses.size(), 1u);
  EXPECT_EQ(out.responses[0].names, (std::vector<std::string>{"g_1of2", "g_2of2"}));
}

TEST(Coordinator, AlltoallEvenSplitNeedsDivisibleFirstDim) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[0].requests = {Make(0, "t", RequestType::kAlltoall, DataType::kInt32, {3})};
  lists[1].requests = {Make(1, "t", RequestType::kAlltoall, DataType::kInt32, {4})};
  EXPECT_EQ(OnlyError(c.Compute(lists)),
            "Rank 0 gave no splits for ALLTOALL 't', and its first dimension 3 does not divide "
            "evenly by 2 ranks. Pass splits, or make the first dimension a multiple of the "
            "number of ranks.");
}

TEST(Coordinator, ShutdownFromAnyRankStopsEveryone) {
  Coordinator c(2, 0);
  auto lists = Lists(2);
  lists[1].shutdown = true;
  EXPECT_TRUE(c.Compute(lists).shutdown);
}

}  // namespace kolo

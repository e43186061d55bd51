#include <gtest/gtest.h>

#include "engine/message.h"

namespace kolo {

TEST(Message, RequestListRoundTripsEveryField) {
  RequestList list;
  list.shutdown = true;
  Request r;
  r.rank = 3;
  r.type = RequestType::kAlltoall;
  r.dtype = DataType::kInt64;
  r.name = "alltoall.x";
  r.shape = {4, 2};
  r.reduce_op = ReduceOp::kMax;
  r.root = 2;
  r.prescale = 0.5;
  r.postscale = 3.0;
  r.splits = {1, 3};
  r.parts = {2, 2, 3, 0, 1, 5};
  r.group = "g#group";
  r.group_size = 2;
  list.requests.push_back(r);
  RequestList back = ParseRequestList(Serialize(list));
  ASSERT_EQ(back.requests.size(), 1u);
  EXPECT_TRUE(back.shutdown);
  const Request& b = back.requests[0];
  EXPECT_EQ(b.rank, 3);
  EXPECT_EQ(b.type, RequestType::kAlltoall);
  EXPECT_EQ(b.dtype, DataType::kInt64);
  EXPECT_EQ(b.name, "alltoall.x");
  EXPECT_EQ(b.shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(b.reduce_op, ReduceOp::kMax);
  EXPECT_EQ(b.root, 2);
  EXPECT_EQ(b.prescale, 0.5);
  EXPECT_EQ(b.postscale, 3.0);
  EXPECT_EQ(b.splits, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(b.parts, (std::vector<int64_t>{2, 2, 3, 0, 1, 5}));
  EXPECT_EQ(b.group, "g#group");
  EXPECT_EQ(b.group_size, 2);
}

TEST(Message, ResponseListRoundTripsErrorsAndJoin) {
  ResponseList list;
  Response e;
  e.type = RequestType::kError;
  e.names = {"a", "b"};
  e.error_code = StatusCode::kMismatch;
  e.error_message = "Mismatched data types";
  Response j;
  j.type = RequestType::kJoin;
  j.last_joined_rank = 2;
  list.responses = {e, j};
  ResponseList back = ParseResponseList(Serialize(list));
  ASSERT_EQ(back.responses.size(), 2u);
  EXPECT_EQ(back.responses[0].names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back.responses[0].error_code, StatusCode::kMismatch);
  EXPECT_EQ(back.responses[0].error_message, "Mismatched data types");
  EXPECT_EQ(back.responses[1].type, RequestType::kJoin);
  EXPECT_EQ(back.responses[1].last_joined_rank, 2);
}

TEST(Message, TruncatedInputThrows) {
  RequestList list;
  list.requests.push_back(Request{});
  std::vector<char> bytes = Serialize(list);
  bytes.resize(bytes.size() - 3);
  EXPECT_THROW(ParseRequestList(bytes), WireError);
}

}  // namespace kolo

// Requests a rank sends to the coordinator and the responses it gets back, with a compact
// binary encoding (both sides are the same build, so host byte order is fine).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/common.h"

namespace kolo {

struct Request {
  int32_t rank = 0;
  RequestType type = RequestType::kAllreduce;
  DataType dtype = DataType::kFloat32;
  std::string name;
  std::vector<int64_t> shape;
  ReduceOp reduce_op = ReduceOp::kSum;
  int32_t root = 0;
  double prescale = 1.0;
  double postscale = 1.0;
  std::vector<int64_t> splits;  // alltoall rows per destination; empty = even split
  // allreduce of a packed group: the dimensions of each of its arrays, one after another, each
  // as its rank then its dims ([2, 3, 4, 1, 5]: a 3x4 array then a 5-element one). `shape` is
  // then [their total elements]. Empty for one array. Checked across ranks like a shape.
  std::vector<int64_t> parts;
  std::string group;            // non-empty for members of a grouped call
  int32_t group_size = 0;
  int32_t process_set = 0;      // 0: every rank. add: splits = the new set's ranks; remove: root = id
  // ResponseCache::Lookup's last hit for this very request and the cache's generation then (0:
  // none): a request queued again unchanged (a kept batch's) hits again without hashing its
  // name while no entry came or went. Not part of the request: never sent, never compared.
  mutable uint64_t cache_generation = 0;
  mutable size_t cache_index = 0;
};

struct RequestList {
  std::vector<Request> requests;
  bool shutdown = false;
};

struct Response {
  RequestType type = RequestType::kAllreduce;
  std::vector<std::string> names;
  // allreduce/reducescatter: elements per name. allgather: first dim per rank.
  std::vector<int64_t> sizes;
  DataType dtype = DataType::kFloat32;
  ReduceOp reduce_op = ReduceOp::kSum;
  double prescale = 1.0;
  double postscale = 1.0;
  int32_t root = 0;
  // alltoall: size x size matrix of rows, row = sender, column = receiver.
  std::vector<int64_t> splits;
  int32_t last_joined_rank = -1;
  int32_t process_set = 0;  // add/remove: the set's id (splits = its ranks on add)
  StatusCode error_code = StatusCode::kOk;
  std::string error_message;
};

struct ResponseList {
  std::vector<Response> responses;
  bool shutdown = false;
  // Set when the coordinator ends the job (a stall past its limit): every rank stops with it.
  std::string abort_message;
  int32_t abort_rank = -1;
  // No rank sent a request this cycle, so the next cycle is paced by the cycle time.
  bool quiet = false;
  // Rank 0's tuning vote (autotune.h) while it autotunes, for cycles negotiated without a vote.
  std::string tuning;
};

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<char> Serialize(const RequestList& list);
std::vector<char> Serialize(const ResponseList& list);
// Throw WireError on truncated or malformed input.
RequestList ParseRequestList(const std::vector<char>& bytes);
ResponseList ParseResponseList(const std::vector<char>& bytes);

}  // namespace kolo

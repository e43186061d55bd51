// Shared vocabulary of the engine: data types, request kinds, reductions and statuses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kolo {

enum class DataType : uint8_t {
  kFloat32 = 0,
  kFloat64 = 1,
  kInt32 = 2,
  kInt64 = 3,
  kUint8 = 4,
  kInt8 = 5,
  kFloat16 = 6,
};
constexpr int kNumDataTypes = 7;

enum class RequestType : uint8_t {
  kAllreduce = 0,
  kAllgather = 1,
  kBroadcast = 2,
  kAlltoall = 3,
  kReducescatter = 4,
  kBarrier = 5,
  kJoin = 6,
  kAddProcessSet = 7,
  kRemoveProcessSet = 8,
  kError = 9,  // responses only
};
constexpr int kNumRequestTypes = 9;

// Numbered as Horovod's ReduceOp so mismatch messages print the same integers.
enum class ReduceOp : uint8_t {
  kAverage = 0,
  kSum = 1,
  kMin = 3,
  kMax = 4,
  kProduct = 5,
};

enum class StatusCode : uint8_t {
  kOk = 0,
  kShutDown,
  kMismatch,
  kDuplicateName,
  kTimeout,
  kCommunication,
  kUnsupported,
  kInternal,
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;
  int failed_rank = -1;

  bool ok() const { return code == StatusCode::kOk; }
  static Status Ok() { return {}; }
  static Status Error(StatusCode code, std::string message, int failed_rank = -1) {
    return Status{code, std::move(message), failed_rank};
  }
};

// One tensor of a fused allreduce: `bytes` read from `in`, its result written to `out` (which
// may be `in`).
struct BufferSegment {
  const void* in = nullptr;
  void* out = nullptr;
  size_t bytes = 0;
};

size_t DataTypeSize(DataType dtype);
const char* DataTypeName(DataType dtype);
// Upper-case names as Horovod prints them in messages, e.g. "ALLREDUCE".
const char* RequestTypeName(RequestType type);
// Lower-case names as JS sees them, e.g. "allreduce".
const char* RequestTypeJsName(RequestType type);
const char* ReduceOpJsName(ReduceOp op);
const char* StatusCodeName(StatusCode code);
bool IsValidReduceOp(int value);

int64_t NumElements(const std::vector<int64_t>& shape);
// Elements in one row of the first dimension: every dimension but the first multiplied.
int64_t RowElements(const std::vector<int64_t>& shape);
std::string ShapeString(const std::vector<int64_t>& shape);
// How many arrays a request's `parts` (message.h) describes, without decoding them; 0 when its
// ranks and dimensions do not add up or a dimension is negative.
size_t CountParts(const std::vector<int64_t>& parts);
// The shapes in a request's `parts` (message.h); nullopt when they do not add up.
std::optional<std::vector<std::vector<int64_t>>> PartShapes(const std::vector<int64_t>& parts);

}  // namespace kolo

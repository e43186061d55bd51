#include "engine/common.h"

#include <sstream>

namespace kolo {

size_t DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return 4;
    case DataType::kFloat64: return 8;
    case DataType::kInt32: return 4;
    case DataType::kInt64: return 8;
    case DataType::kUint8: return 1;
    case DataType::kInt8: return 1;
    case DataType::kFloat16: return 2;
  }
  return 0;
}

const char* DataTypeName(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return "float32";
    case DataType::kFloat64: return "float64";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kUint8: return "uint8";
    case DataType::kInt8: return "int8";
    case DataType::kFloat16: return "float16";
  }
  return "unknown";
}

const char* RequestTypeName(RequestType type) {
  switch (type) {
    case RequestType::kAllreduce: return "ALLREDUCE";
    case RequestType::kAllgather: return "ALLGATHER";
    case RequestType::kBroadcast: return "BROADCAST";
    case RequestType::kAlltoall: return "ALLTOALL";
    case RequestType::kReducescatter: return "REDUCESCATTER";
    case RequestType::kBarrier: return "BARRIER";
    case RequestType::kJoin: return "JOIN";
    case RequestType::kAddProcessSet: return "ADD_PROCESS_SET";
    case RequestType::kRemoveProcessSet: return "REMOVE_PROCESS_SET";
    case RequestType::kError: return "ERROR";
  }
  return "UNKNOWN";
}

const char* RequestTypeJsName(RequestType type) {
  switch (type) {
    case RequestType::kAllreduce: return "allreduce";
    case RequestType::kAllgather: return "allgather";
    case RequestType::kBroadcast: return "broadcast";
    case RequestType::kAlltoall: return "alltoall";
    case RequestType::kReducescatter: return "reducescatter";
    case RequestType::kBarrier: return "barrier";
    case RequestType::kJoin: return "join";
    case RequestType::kAddProcessSet: return "addProcessSet";
    case RequestType::kRemoveProcessSet: return "removeProcessSet";
    case RequestType::kError: return "error";
  }
  return "unknown";
}

const char* ReduceOpJsName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kAverage: return "average";
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kProduct: return "product";
  }
  return "unknown";
}

bool IsValidReduceOp(int value) {
  return value == 0 || value == 1 || value == 3 || value == 4 || value == 5;
}

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "KOLO_OK";
    case StatusCode::kShutDown: return "KOLO_SHUT_DOWN";
    case StatusCode::kMismatch: return "KOLO_MISMATCH";
    case StatusCode::kDuplicateName: return "KOLO_DUPLICATE_NAME";
    case StatusCode::kTimeout: return "KOLO_TIMEOUT";
    case StatusCode::kCommunication: return "KOLO_COMMUNICATION";
    case StatusCode::kUnsupported: return "KOLO_UNSUPPORTED";
    case StatusCode::kInternal: return "KOLO_INTERNAL";
  }
  return "KOLO_INTERNAL";
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t RowElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (size_t d = 1; d < shape.size(); ++d) n *= shape[d];
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << "]";
  return out.str();
}

size_t CountParts(const std::vector<int64_t>& parts) {
  size_t count = 0;
  for (size_t k = 0; k < parts.size(); ++count) {
    const int64_t rank = parts[k++];
    if (rank < 0 || static_cast<uint64_t>(rank) > parts.size() - k) return 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (parts[k++] < 0) return 0;
    }
  }
  return count;
}

std::optional<std::vector<std::vector<int64_t>>> PartShapes(const std::vector<int64_t>& parts) {
  std::vector<std::vector<int64_t>> shapes;
  size_t at = 0;
  while (at < parts.size()) {
    const int64_t rank = parts[at++];
    if (rank < 0 || static_cast<uint64_t>(rank) > parts.size() - at) return std::nullopt;
    shapes.emplace_back(parts.begin() + static_cast<std::ptrdiff_t>(at),
                        parts.begin() + static_cast<std::ptrdiff_t>(at + static_cast<size_t>(rank)));
    at += static_cast<size_t>(rank);
  }
  return shapes;
}

}  // namespace kolo

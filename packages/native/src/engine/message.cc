#include "engine/message.h"

#include <cstring>

namespace kolo {
namespace {

class Writer {
 public:
  template <typename T>
  void Pod(T value) {
    const char* p = reinterpret_cast<const char*>(&value);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  void Str(const std::string& s) {
    Pod<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void Ints(const std::vector<int64_t>& v) {
    Pod<uint32_t>(static_cast<uint32_t>(v.size()));
    for (int64_t x : v) Pod<int64_t>(x);
  }
  std::vector<char> Take() { return std::move(out_); }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& in) : in_(in) {}
  template <typename T>
  T Pod() {
    Need(sizeof(T));
    T value;
    std::memcpy(&value, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string Str() {
    uint32_t n = Pod<uint32_t>();
    Need(n);
    std::string s(in_.data() + pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<int64_t> Ints() {
    uint32_t n = Pod<uint32_t>();
    Need(static_cast<size_t>(n) * sizeof(int64_t));
    std::vector<int64_t> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = Pod<int64_t>();
    return v;
  }

 private:
  void Need(size_t n) const {
    if (pos_ + n > in_.size()) throw WireError("truncated engine message");
  }
  const std::vector<char>& in_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<char> Serialize(const RequestList& list) {
  Writer w;
  w.Pod<uint8_t>(list.shutdown ? 1 : 0);
  w.Pod<uint32_t>(static_cast<uint32_t>(list.requests.size()));
  for (const Request& r : list.requests) {
    w.Pod<int32_t>(r.rank);
    w.Pod<uint8_t>(static_cast<uint8_t>(r.type));
    w.Pod<uint8_t>(static_cast<uint8_t>(r.dtype));
    w.Str(r.name);
    w.Ints(r.shape);
    w.Pod<uint8_t>(static_cast<uint8_t>(r.reduce_op));
    w.Pod<int32_t>(r.root);
    w.Pod<double>(r.prescale);
    w.Pod<double>(r.postscale);
    w.Ints(r.splits);
    w.Ints(r.parts);
    w.Str(r.group);
    w.Pod<int32_t>(r.group_size);
    w.Pod<int32_t>(r.process_set);
  }
  return w.Take();
}

RequestList ParseRequestList(const std::vector<char>& bytes) {
  Reader rd(bytes);
  RequestList list;
  list.shutdown = rd.Pod<uint8_t>() != 0;
  uint32_t n = rd.Pod<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    Request r;
    r.rank = rd.Pod<int32_t>();
    r.type = static_cast<RequestType>(rd.Pod<uint8_t>());
    r.dtype = static_cast<DataType>(rd.Pod<uint8_t>());
    r.name = rd.Str();
    r.shape = rd.Ints();
    r.reduce_op = static_cast<ReduceOp>(rd.Pod<uint8_t>());
    r.root = rd.Pod<int32_t>();
    r.prescale = rd.Pod<double>();
    r.postscale = rd.Pod<double>();
    r.splits = rd.Ints();
    r.parts = rd.Ints();
    r.group = rd.Str();
    r.group_size = rd.Pod<int32_t>();
    r.process_set = rd.Pod<int32_t>();
    list.requests.push_back(std::move(r));
  }
  return list;
}

std::vector<char> Serialize(const ResponseList& list) {
  Writer w;
  w.Pod<uint8_t>(list.shutdown ? 1 : 0);
  w.Str(list.abort_message);
  w.Pod<int32_t>(list.abort_rank);
  w.Pod<uint8_t>(list.quiet ? 1 : 0);
  w.Str(list.tuning);
  w.Pod<uint32_t>(static_cast<uint32_t>(list.responses.size()));
  for (const Response& r : list.responses) {
    w.Pod<uint8_t>(static_cast<uint8_t>(r.type));
    w.Pod<uint32_t>(static_cast<uint32_t>(r.names.size()));
    for (const std::string& name : r.names) w.Str(name);
    w.Ints(r.sizes);
    w.Pod<uint8_t>(static_cast<uint8_t>(r.dtype));
    w.Pod<uint8_t>(static_cast<uint8_t>(r.reduce_op));
    w.Pod<double>(r.prescale);
    w.Pod<double>(r.postscale);
    w.Pod<int32_t>(r.root);
    w.Ints(r.splits);
    w.Pod<int32_t>(r.last_joined_rank);
    w.Pod<int32_t>(r.process_set);
    w.Pod<uint8_t>(static_cast<uint8_t>(r.error_code));
    w.Str(r.error_message);
  }
  return w.Take();
}

ResponseList ParseResponseList(const std::vector<char>& bytes) {
  Reader rd(bytes);
  ResponseList list;
  list.shutdown = rd.Pod<uint8_t>() != 0;
  list.abort_message = rd.Str();
  list.abort_rank = rd.Pod<int32_t>();
  list.quiet = rd.Pod<uint8_t>() != 0;
  list.tuning = rd.Str();
  uint32_t n = rd.Pod<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    Response r;
    r.type = static_cast<RequestType>(rd.Pod<uint8_t>());
    uint32_t names = rd.Pod<uint32_t>();
    for (uint32_t k = 0; k < names; ++k) r.names.push_back(rd.Str());
    r.sizes = rd.Ints();
    r.dtype = static_cast<DataType>(rd.Pod<uint8_t>());
    r.reduce_op = static_cast<ReduceOp>(rd.Pod<uint8_t>());
    r.prescale = rd.Pod<double>();
    r.postscale = rd.Pod<double>();
    r.root = rd.Pod<int32_t>();
    r.splits = rd.Ints();
    r.last_joined_rank = rd.Pod<int32_t>();
    r.process_set = rd.Pod<int32_t>();
    r.error_code = static_cast<StatusCode>(rd.Pod<uint8_t>());
    r.error_message = rd.Str();
    list.responses.push_back(std::move(r));
  }
  return list;
}

}  // namespace kolo

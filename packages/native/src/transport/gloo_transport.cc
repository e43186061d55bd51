#include "transport/gloo_transport.h"

#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

#include <algorithm>
#include <cstring>

#include "engine/kernels.h"

namespace kolo {
namespace {

constexpr uint32_t kDataTag = 2;
constexpr uint8_t kControlSlotPrefix = 0x40;
constexpr uint8_t kDirectSlotPrefix = 0x41;

template <typename T>
gloo::AllreduceOptions::Func ReduceFunc(ReduceOp op) {
  using Fn = void (*)(void*, const void*, const void*, size_t);
  switch (op) {
    case ReduceOp::kMin: return static_cast<Fn>(&gloo::min<T>);
    case ReduceOp::kMax: return static_cast<Fn>(&gloo::max<T>);
    case ReduceOp::kProduct: return static_cast<Fn>(&gloo::product<T>);
    default: return static_cast<Fn>(&gloo::sum<T>);
  }
}

template <typename T>
void RunAllreduce(std::shared_ptr<gloo::Context>& ctx, void* data, int64_t count, ReduceOp op,
                  std::chrono::milliseconds timeout) {
  gloo::AllreduceOptions opts(ctx);
  opts.setOutput(static_cast<T*>(data), static_cast<size_t>(count));
  opts.setReduceFunction(ReduceFunc<T>(op));
  opts.setTag(kDataTag);
  opts.setTimeout(timeout);
  gloo::allreduce(opts);
}

gloo::AllreduceOptions::Func FuncFor(DataType dtype, ReduceOp op) {
  switch (dtype) {
    case DataType::kFloat32: return ReduceFunc<float>(op);
    case DataType::kFloat64: return ReduceFunc<double>(op);
    case DataType::kInt32: return ReduceFunc<int32_t>(op);
    case DataType::kInt64: return ReduceFunc<int64_t>(op);
    case DataType::kUint8: return ReduceFunc<uint8_t>(op);
    case DataType::kInt8: return ReduceFunc<int8_t>(op);
    case DataType::kFloat16: break;
  }
  throw std::logic_error("float16 must be reduced in float32 by the engine");
}

}  // namespace

template <typename Fn>
void GlooTransport::Guard(const char* what, Fn&& fn, int peer) {
  try {
    fn();
  } catch (const gloo::IoException& e) {
    std::string msg = e.what();
    bool timed_out = msg.find("Timed out") != std::string::npos;
    throw TransportError(std::string(what) + ": " + msg, peer, timed_out);
  } catch (const std::exception& e) {
    throw TransportError(std::string(what) + ": " + e.what(), peer);
  }
}

GlooTransport::GlooTransport(gloo::rendezvous::Store& store, const GlooOptions& options)
    : options_(options) {
  Guard("rendezvous", [&] {
    gloo::transport::tcp::attr attr;
    if (!options.iface.empty()) {
      attr.iface = options.iface;
    } else {
      attr.hostname = options.hostname;
    }
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto ctx = std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
    ctx->setTimeout(options.timeout);
    ctx->connectFullMesh(store, device);
    context_ = ctx;
  });
}

GlooTransport::~GlooTransport() = default;

TransportCapabilities GlooTransport::Capabilities() const {
  return {"gloo",
          {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64,
           DataType::kUint8, DataType::kInt8}};
}

// Control messages travel as one frame when they fit: [u64 length][payload] in a buffer of
// kInlineBytes (Gloo completes a receive when a shorter message arrives); longer payloads send
// their tail as a second message of known size. One message per rank per direction per cycle.
void GlooTransport::SendFrame(int peer, const std::vector<char>& payload, uint64_t slot) {
  const uint64_t len = payload.size();
  std::vector<char>& head = scratch_;
  const size_t inline_bytes = std::min<size_t>(len, kInlineBytes - sizeof len);
  head.resize(sizeof len + inline_bytes);
  std::memcpy(head.data(), &len, sizeof len);
  if (inline_bytes > 0) std::memcpy(head.data() + sizeof len, payload.data(), inline_bytes);
  auto first = context_->createUnboundBuffer(head.data(), head.size());
  first->send(peer, slot);
  first->waitSend(options_.timeout);
  if (len > inline_bytes) {
    auto rest = context_->createUnboundBuffer(const_cast<char*>(payload.data()) + inline_bytes,
                                              len - inline_bytes);
    rest->send(peer, slot + 1);
    rest->waitSend(options_.timeout);
  }
}

std::vector<char> GlooTransport::RecvFrame(int peer, uint64_t slot) {
  std::vector<char> head(kInlineBytes);
  auto first = context_->createUnboundBuffer(head.data(), head.size());
  first->recv(peer, slot);
  first->waitRecv(options_.timeout);
  uint64_t len;
  std::memcpy(&len, head.data(), sizeof len);
  const size_t inline_bytes = std::min<size_t>(len, kInlineBytes - sizeof len);
  std::vector<char> payload(len);
  if (inline_bytes > 0) std::memcpy(payload.data(), head.data() + sizeof len, inline_bytes);
  if (len > inline_bytes) {
    auto rest = context_->createUnboundBuffer(payload.data() + inline_bytes, len - inline_bytes);
    rest->recv(peer, slot + 1);
    rest->waitRecv(options_.timeout);
  }
  return payload;
}

std::vector<std::vector<char>> GlooTransport::GatherToRoot(const std::vector<char>& mine) {
  const uint64_t slot = gloo::Slot::build(kControlSlotPrefix, 0);
  std::vector<std::vector<char>> all;
  if (options_.rank != 0) {
    Guard("sending requests to the coordinator (rank 0)", [&] { SendFrame(0, mine, slot); }, 0);
    return all;
  }
  all.resize(options_.size);
  all[0] = mine;
  for (int r = 1; r < options_.size; ++r) {
    const std::string what = "receiving requests from rank " + std::to_string(r);
    Guard(what.c_str(), [&] { all[r] = RecvFrame(r, slot); }, r);
  }
  return all;
}

std::vector<char> GlooTransport::BroadcastFromRoot(std::vector<char> data) {
  const uint64_t slot = gloo::Slot::build(kControlSlotPrefix, 2);
  if (options_.rank != 0) {
    Guard("receiving responses from the coordinator (rank 0)",
          [&] { data = RecvFrame(0, slot); }, 0);
    return data;
  }
  for (int r = 1; r < options_.size; ++r) {
    const std::string what = "sending responses to rank " + std::to_string(r);
    Guard(what.c_str(), [&] { SendFrame(r, data, slot); }, r);
  }
  return data;
}

// Latency-bound sizes (and any size on two ranks) use one direct exchange: every rank sends its
// whole buffer to every other rank and reduces the contributions in rank order, so the result is
// bitwise identical everywhere. Larger buffers on more ranks use Gloo's ring.
void GlooTransport::DirectAllreduce(void* data, int64_t count, DataType dtype, ReduceOp op) {
  const int size = options_.size;
  const int me = options_.rank;
  const size_t bytes = static_cast<size_t>(count) * DataTypeSize(dtype);
  const uint64_t slot = gloo::Slot::build(kDirectSlotPrefix, 0);
  auto fn = FuncFor(dtype, op);
  if (size == 2) {
    // Every reduction here is commutative, so x0 op x1 == x1 op x0 bit for bit.
    exchange_.resize(bytes);
    auto in = context_->createUnboundBuffer(exchange_.data(), bytes);
    in->recv(1 - me, slot);
    auto out = context_->createUnboundBuffer(data, bytes);
    out->send(1 - me, slot);
    out->waitSend(options_.timeout);
    in->waitRecv(options_.timeout);
    fn(data, data, exchange_.data(), count);
    return;
  }
  exchange_.resize(static_cast<size_t>(size) * bytes);
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> recvs;
  for (int p = 0; p < size; ++p) {
    if (p == me) continue;
    recvs.push_back(context_->createUnboundBuffer(exchange_.data() + p * bytes, bytes));
    recvs.back()->recv(p, slot);
  }
  auto mine = context_->createUnboundBuffer(data, bytes);
  for (int p = 0; p < size; ++p) {
    if (p != me) mine->send(p, slot);
  }
  for (int p = 0; p < size - 1; ++p) mine->waitSend(options_.timeout);
  for (auto& r : recvs) r->waitRecv(options_.timeout);
  CopyBytes(exchange_.data() + me * bytes, data, bytes);
  char* acc = exchange_.data();
  for (int p = 1; p < size; ++p) fn(acc, acc, exchange_.data() + p * bytes, count);
  CopyBytes(data, acc, bytes);
}

void GlooTransport::Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) {
  if (count == 0) return;
  const size_t bytes = static_cast<size_t>(count) * DataTypeSize(dtype);
  if (options_.size == 2 || bytes <= kDirectAllreduceBytes) {
    Guard("allreduce", [&] { DirectAllreduce(data, count, dtype, op); });
    return;
  }
  Guard("allreduce", [&] {
    auto t = options_.timeout;
    switch (dtype) {
      case DataType::kFloat32: RunAllreduce<float>(context_, data, count, op, t); break;
      case DataType::kFloat64: RunAllreduce<double>(context_, data, count, op, t); break;
      case DataType::kInt32: RunAllreduce<int32_t>(context_, data, count, op, t); break;
      case DataType::kInt64: RunAllreduce<int64_t>(context_, data, count, op, t); break;
      case DataType::kUint8: RunAllreduce<uint8_t>(context_, data, count, op, t); break;
      case DataType::kInt8: RunAllreduce<int8_t>(context_, data, count, op, t); break;
      case DataType::kFloat16:
        throw std::logic_error("float16 must be reduced in float32 by the engine");
    }
  });
}

void GlooTransport::Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                               size_t element_size) {
  size_t total = 0;
  for (size_t c : counts) total += c;
  if (total == 0) return;  // Gloo must never see a zero-byte gather
  Guard("allgather", [&] {
    // Gather raw bytes so every element size works the same way.
    std::vector<size_t> byte_counts;
    for (size_t c : counts) byte_counts.push_back(c * element_size);
    gloo::AllgathervOptions opts(context_);
    opts.setInput(static_cast<uint8_t*>(const_cast<void*>(input)),
                  byte_counts[options_.rank]);
    opts.setOutput(static_cast<uint8_t*>(output), byte_counts);
    opts.setTag(kDataTag);
    opts.setTimeout(options_.timeout);
    gloo::allgatherv(opts);
  });
}

void GlooTransport::Broadcast(void* data, size_t bytes, int root) {
  if (bytes == 0) return;
  Guard("broadcast", [&] {
    gloo::BroadcastOptions opts(context_);
    opts.setOutput(static_cast<uint8_t*>(data), bytes);
    opts.setRoot(root);
    opts.setTag(kDataTag);
    opts.setTimeout(options_.timeout);
    gloo::broadcast(opts);
  });
}

void GlooTransport::Alltoallv(const void* input, const std::vector<int64_t>& send_counts,
                              void* output, const std::vector<int64_t>& recv_counts,
                              size_t element_size) {
  Guard("alltoall", [&] {
    std::vector<int64_t> send_bytes, recv_bytes;
    for (int64_t c : send_counts) send_bytes.push_back(c * static_cast<int64_t>(element_size));
    for (int64_t c : recv_counts) recv_bytes.push_back(c * static_cast<int64_t>(element_size));
    // Gloo wants valid pointers even for empty sides.
    uint8_t dummy_in = 0, dummy_out = 0;
    gloo::AlltoallvOptions opts(context_);
    opts.setInput(input ? static_cast<uint8_t*>(const_cast<void*>(input)) : &dummy_in,
                  send_bytes);
    opts.setOutput(output ? static_cast<uint8_t*>(output) : &dummy_out, recv_bytes);
    opts.setTag(kDataTag);
    opts.setTimeout(options_.timeout);
    gloo::alltoallv(opts);
  });
}

void GlooTransport::Barrier() {
  Guard("barrier", [&] {
    gloo::BarrierOptions opts(context_);
    opts.setTag(kDataTag);
    opts.setTimeout(options_.timeout);
    gloo::barrier(opts);
  });
}

}  // namespace kolo

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

#include <cstring>

namespace kolo {
namespace {

constexpr uint32_t kControlTag = 1;
constexpr uint32_t kDataTag = 2;
constexpr uint8_t kControlSlotPrefix = 0x40;

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

std::vector<std::vector<char>> GlooTransport::GatherToRoot(const std::vector<char>& mine) {
  const int size = options_.size;
  const auto len_slot = gloo::Slot::build(kControlSlotPrefix, 0);
  const auto data_slot = gloo::Slot::build(kControlSlotPrefix, 1);
  std::vector<std::vector<char>> all;
  if (options_.rank != 0) {
    Guard("sending requests to the coordinator (rank 0)", [&] {
      uint64_t len = mine.size();
      auto lbuf = context_->createUnboundBuffer(&len, sizeof len);
      lbuf->send(0, len_slot);
      lbuf->waitSend(options_.timeout);
      if (len > 0) {
        auto dbuf = context_->createUnboundBuffer(const_cast<char*>(mine.data()), len);
        dbuf->send(0, data_slot);
        dbuf->waitSend(options_.timeout);
      }
    }, 0);
    return all;
  }
  all.resize(size);
  all[0] = mine;
  std::vector<uint64_t> lens(size, 0);
  for (int r = 1; r < size; ++r) {
    const std::string what = "receiving requests from rank " + std::to_string(r);
    Guard(what.c_str(), [&] {
      auto lbuf = context_->createUnboundBuffer(&lens[r], sizeof(uint64_t));
      lbuf->recv(r, len_slot);
      lbuf->waitRecv(options_.timeout);
      all[r].resize(lens[r]);
      if (lens[r] > 0) {
        auto dbuf = context_->createUnboundBuffer(all[r].data(), lens[r]);
        dbuf->recv(r, data_slot);
        dbuf->waitRecv(options_.timeout);
      }
    }, r);
  }
  return all;
}

std::vector<char> GlooTransport::BroadcastFromRoot(std::vector<char> data) {
  Guard("receiving responses from the coordinator (rank 0)", [&] {
    uint64_t len = data.size();
    gloo::BroadcastOptions lopts(context_);
    lopts.setOutput(&len, 1);
    lopts.setRoot(0);
    lopts.setTag(kControlTag);
    lopts.setTimeout(options_.timeout);
    gloo::broadcast(lopts);
    data.resize(len);
    if (len == 0) return;
    gloo::BroadcastOptions dopts(context_);
    dopts.setOutput(data.data(), len);
    dopts.setRoot(0);
    dopts.setTag(kControlTag);
    dopts.setTimeout(options_.timeout);
    gloo::broadcast(dopts);
  }, options_.rank == 0 ? -1 : 0);
  return data;
}

void GlooTransport::Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) {
  if (count == 0) return;
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

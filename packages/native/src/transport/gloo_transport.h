// The Gloo (TCP) transport: a full-mesh Gloo context per engine generation.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "transport/transport.h"

namespace gloo {
class Context;
namespace rendezvous {
class Store;
}
}  // namespace gloo

namespace kolo {

struct GlooOptions {
  int rank = 0;
  int size = 1;
  std::string hostname;  // address to bind; used when iface is empty
  std::string iface;
  std::chrono::milliseconds timeout{30000};
};

class GlooTransport : public Transport {
 public:
  // Blocks until every rank has connected through `store`; throws TransportError on failure.
  GlooTransport(gloo::rendezvous::Store& store, const GlooOptions& options);
  ~GlooTransport() override;

  TransportCapabilities Capabilities() const override;
  std::vector<std::vector<char>> GatherToRoot(const std::vector<char>& mine) override;
  std::vector<char> BroadcastFromRoot(std::vector<char> data) override;
  void Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) override;
  void Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                  size_t element_size) override;
  void Broadcast(void* data, size_t bytes, int root) override;
  void Alltoallv(const void* input, const std::vector<int64_t>& send_counts, void* output,
                 const std::vector<int64_t>& recv_counts, size_t element_size) override;
  void Barrier() override;

 private:
  template <typename Fn>
  void Guard(const char* what, Fn&& fn, int peer = -1);
  void SendFrame(int peer, const std::vector<char>& payload, uint64_t slot);
  std::vector<char> RecvFrame(int peer, uint64_t slot);

  void DirectAllreduce(void* data, int64_t count, DataType dtype, ReduceOp op);

  static constexpr size_t kInlineBytes = 64 * 1024;
  static constexpr size_t kDirectAllreduceBytes = 64 * 1024;
  std::vector<char> scratch_;
  std::vector<char> exchange_;

  GlooOptions options_;
  std::shared_ptr<gloo::Context> context_;
};

}  // namespace kolo

// A Transport that hands every call to an inner one; tests derive from it to observe one kind
// of call (count gathers, record allreduce sizes) and override just that method.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "transport/transport.h"

namespace kolo {

class ForwardingTransport : public Transport {
 public:
  explicit ForwardingTransport(std::unique_ptr<Transport> inner)
      : owned_(std::move(inner)), inner_(owned_.get()) {}
  // Forwards to a transport that the caller keeps alive.
  explicit ForwardingTransport(Transport& inner) : inner_(&inner) {}
  TransportCapabilities Capabilities() const override { return inner_->Capabilities(); }
  std::vector<std::vector<char>> GatherToRoot(const std::vector<char>& mine) override {
    return inner_->GatherToRoot(mine);
  }
  std::vector<char> BroadcastFromRoot(std::vector<char> data) override {
    return inner_->BroadcastFromRoot(std::move(data));
  }
  void Allreduce(void* d, int64_t n, DataType t, ReduceOp op) override {
    inner_->Allreduce(d, n, t, op);
  }
  void Allgatherv(const void* in, void* out, const std::vector<size_t>& c, size_t e) override {
    inner_->Allgatherv(in, out, c, e);
  }
  void Broadcast(void* d, size_t b, int root) override { inner_->Broadcast(d, b, root); }
  void Alltoallv(const void* in, const std::vector<int64_t>& s, void* out,
                 const std::vector<int64_t>& r, size_t e) override {
    inner_->Alltoallv(in, s, out, r, e);
  }
  void Barrier() override { inner_->Barrier(); }
  bool PeersWaiting() const override { return inner_->PeersWaiting(); }
  bool AnnounceNext(bool on) override { return inner_->AnnounceNext(on); }
  bool PeersReady() const override { return inner_->PeersReady(); }
  size_t InPlaceBytes() const override { return inner_->InPlaceBytes(); }
  char* InPlaceOutbox() override { return inner_->InPlaceOutbox(); }
  const char* const* ExchangeInPlace(const char* what) override { return inner_->ExchangeInPlace(what); }
  void PublishInPlace() override { inner_->PublishInPlace(); }
  bool InPlaceArrived() const override { return inner_->InPlaceArrived(); }
  bool YieldWhileWaiting() const override { return inner_->YieldWhileWaiting(); }

 private:
  std::unique_ptr<Transport> owned_;
  Transport* inner_;
};

}  // namespace kolo

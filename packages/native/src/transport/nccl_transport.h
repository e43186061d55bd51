// The NCCL transport: the data plane of every collective runs on this process's GPU, for host
// TypedArrays staged through pinned host memory and a device buffer on a dedicated CUDA stream.
// Chosen with KOLO_TRANSPORT=nccl. Compiled only when the CUDA runtime and NCCL were found
// (KOLO_HAVE_NCCL); otherwise every entry point reports how to get it.
//
// One process per GPU: the device is localRank % deviceCount, so a launcher that gives each
// worker CUDA_VISIBLE_DEVICES=<its GPU> gets device 0 everywhere.
// NCCL refuses two ranks of one communicator on the same GPU ("Duplicate GPU detected"), so a
// one-GPU host can only run single-rank NCCL jobs.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/kv_store.h"
#include "transport/transport.h"

namespace kolo {

bool NcclCompiledIn();
// Call on the main thread before starting an engine: throws std::runtime_error, naming the fix,
// when this build has no NCCL transport or no CUDA device is visible to this process.
void EnsureNcclUsable();

struct NcclOptions {
  int rank = 0;  // position in this communicator
  int size = 1;
  int local_rank = 0;  // picks the device: local_rank % visible devices
  int gpu_device = -1;  // KOLO_GPU_DEVICE: this visible device instead, when >= 0
  // Store key under which rank 0 publishes the ncclUniqueId; unique per communicator and
  // engine generation, since NCCL ids are single-use.
  std::string id_key;
  std::chrono::milliseconds timeout{30000};
};

class NcclTransport : public Transport {
 public:
  // `control` carries GatherToRoot/BroadcastFromRoot: a Gloo context over the same ranks, already
  // connected (see the .cc for why the control plane stays off the GPU). Blocks until every rank
  // has joined the communicator; throws TransportError on failure.
  NcclTransport(KeyValueStore& store, std::unique_ptr<Transport> control,
                const NcclOptions& options);
  ~NcclTransport() override;

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
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kolo

// The MPI transport (Open MPI or MPICH), used when the job was started by mpirun or asked for
// with KOLO_TRANSPORT=mpi. Compiled only when MPI was found (KOLO_HAVE_MPI).
#pragma once

#include <string>
#include <vector>

#include "transport/transport.h"

namespace kolo {

// Initialises MPI once per process (MPI_THREAD_MULTIPLE, since the engine thread makes the
// calls). Call on the main thread; throws std::runtime_error when MPI is unavailable.
void EnsureMpiInitialized();
// Finalises MPI at process teardown if Kolo initialised it.
void FinalizeMpiIfInitialized();
bool MpiCompiledIn();

class MpiTransport : public Transport {
 public:
  // `ranks` empty: every process (a duplicate of MPI_COMM_WORLD); otherwise the members of a
  // process set, in order (a collective call over those members only).
  explicit MpiTransport(const std::vector<int>& ranks = {});
  ~MpiTransport() override;

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
  int rank() const;
  int size() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace kolo

// Control plane: negotiation (GatherToRoot/BroadcastFromRoot) runs every cycle with small,
// variable-sized messages. It stays on a Gloo context over the same ranks, as Horovod keeps its
// controller on Gloo/MPI next to NCCL: no kernel launch or stream sync per 1 ms cycle, no
// length-then-payload round trips, native timeouts, and a TCP error names the peer that vanished
// (NCCL only says "remote error"). The Gloo mesh is connected first and the ranks agree over it
// that all are ready, so nobody enters the blocking, timeout-less ncclCommInitRank alone.
#include "transport/nccl_transport.h"

#include <stdexcept>

#ifdef KOLO_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>

#include "engine/kernels.h"
#include <thread>
#endif

namespace kolo {

#ifndef KOLO_HAVE_NCCL

namespace {
[[noreturn]] void NotBuilt() {
  throw std::runtime_error(
      "this build of Kolo has no NCCL transport (NCCL and the CUDA runtime were not found when "
      "@kolo/native was compiled); install them, e.g. `pip install --target /opt/kolo-nccl "
      "nvidia-nccl-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-cccl-cu12`, and "
      "rebuild @kolo/native with KOLO_NCCL_HOME=/opt/kolo-nccl (`npx cmake-js rebuild` in its "
      "folder; scripts/gpu-check.sh does both), or use KOLO_TRANSPORT=gloo");
}
}  // namespace

bool NcclCompiledIn() { return false; }
void EnsureNcclUsable() { NotBuilt(); }
struct NcclTransport::Impl {};
NcclTransport::NcclTransport(KeyValueStore&, std::unique_ptr<Transport>, const NcclOptions&) {
  NotBuilt();
}
NcclTransport::~NcclTransport() = default;
TransportCapabilities NcclTransport::Capabilities() const { return {"nccl", {}}; }
std::vector<std::vector<char>> NcclTransport::GatherToRoot(const std::vector<char>&) { return {}; }
std::vector<char> NcclTransport::BroadcastFromRoot(std::vector<char> d) { return d; }
void NcclTransport::Allreduce(void*, int64_t, DataType, ReduceOp) {}
void NcclTransport::Allgatherv(const void*, void*, const std::vector<size_t>&, size_t) {}
void NcclTransport::Broadcast(void*, size_t, int) {}
void NcclTransport::Alltoallv(const void*, const std::vector<int64_t>&, void*,
                              const std::vector<int64_t>&, size_t) {}
void NcclTransport::Barrier() {}

#else

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 7, 0)
#error "Kolo's NCCL transport needs NCCL 2.7 or newer (ncclSend/ncclRecv)"
#endif

namespace {

// Allreduce and broadcast move at most this much per round trip, which bounds the staging
// buffers for any tensor size (the default fusion buffer is 128 MiB).
constexpr size_t kChunkBytes = 64 << 20;
constexpr size_t kMinStagingBytes = 1 << 20;
constexpr auto kSpin = std::chrono::milliseconds(1);
constexpr auto kPollInterval = std::chrono::microseconds(50);

void CheckCuda(cudaError_t code, const std::string& what) {
  if (code != cudaSuccess) {
    throw TransportError("CUDA " + what + " failed: " + cudaGetErrorString(code));
  }
}

bool IsFailure(ncclResult_t r) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
  if (r == ncclInProgress) return false;
#endif
  return r != ncclSuccess;
}

ncclDataType_t TypeOf(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return ncclFloat32;
    case DataType::kFloat64: return ncclFloat64;
    case DataType::kInt32: return ncclInt32;
    case DataType::kInt64: return ncclInt64;
    case DataType::kUint8: return ncclUint8;
    case DataType::kInt8: return ncclInt8;
    case DataType::kFloat16: break;
  }
  throw std::logic_error("float16 must be reduced in float32 by the engine");
}

ncclRedOp_t OpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin: return ncclMin;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kProduct: return ncclProd;
    default: return ncclSum;
  }
}

int VisibleDevices() {
  int count = 0;
  cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess || count == 0) {
    throw std::runtime_error(
        std::string("the NCCL transport needs a CUDA GPU, but none is visible to this process (") +
        (code == cudaSuccess ? "no devices" : cudaGetErrorString(code)) +
        "); check the driver, nvidia-smi and CUDA_VISIBLE_DEVICES, or use KOLO_TRANSPORT=gloo");
  }
  return count;
}

// One process per GPU: with CUDA_VISIBLE_DEVICES set to one device per worker this is device 0.
// KOLO_GPU_DEVICE overrides the local-rank choice for layouts the launcher cannot guess.
int PickDevice(const NcclOptions& options) {
  const int count = VisibleDevices();
  if (options.gpu_device < 0) return options.local_rank % count;
  if (options.gpu_device >= count) {
    throw std::runtime_error("KOLO_GPU_DEVICE is " + std::to_string(options.gpu_device) +
                             " but this process sees " + std::to_string(count) +
                             " CUDA device(s); pick one from 0 to " + std::to_string(count - 1) +
                             " (indices count within CUDA_VISIBLE_DEVICES)");
  }
  return options.gpu_device;
}

std::vector<size_t> Offsets(const std::vector<size_t>& bytes) {
  std::vector<size_t> out(bytes.size(), 0);
  for (size_t i = 1; i < bytes.size(); ++i) out[i] = out[i - 1] + bytes[i - 1];
  return out;
}

// A growable pinned-host or device allocation.
class Staging {
 public:
  explicit Staging(bool pinned) : pinned_(pinned) {}
  ~Staging() { Free(); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  char* Reserve(size_t bytes) {
    if (bytes <= capacity_) return data_;
    Free();
    const size_t want = std::max(bytes, kMinStagingBytes);
    void* p = nullptr;
    CheckCuda(pinned_ ? cudaMallocHost(&p, want) : cudaMalloc(&p, want),
              std::string(pinned_ ? "cudaMallocHost" : "cudaMalloc") + " of " +
                  std::to_string(want) + " bytes");
    data_ = static_cast<char*>(p);
    capacity_ = want;
    return data_;
  }

 private:
  void Free() {
    if (data_ != nullptr) pinned_ ? cudaFreeHost(data_) : cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  bool pinned_;
  char* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace

bool NcclCompiledIn() { return true; }

void EnsureNcclUsable() { VisibleDevices(); }

struct NcclTransport::Impl {
  NcclOptions options;
  std::unique_ptr<Transport> control;
  int device = 0;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  bool failed = false;  // set once anything went wrong: the communicator is aborted, not destroyed
  Staging host{true};
  Staging in{false};
  Staging out{false};

  ~Impl() {
    if (comm != nullptr) failed ? ncclCommAbort(comm) : ncclCommDestroy(comm);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  // After an error nothing enqueued can be trusted: abort so pending kernels stop, and refuse
  // further work (the engine ends the generation; re-init builds a new communicator).
  [[noreturn]] void Fail(const std::string& what, bool timed_out = false) {
    failed = true;
    std::string detail;
    if (comm != nullptr) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
      const char* last = ncclGetLastError(comm);
      if (last != nullptr && *last != '\0') detail = " (" + std::string(last) + ")";
#endif
      ncclCommAbort(comm);
      comm = nullptr;
    }
    throw TransportError("NCCL " + what + detail, -1, timed_out);
  }

  void Cuda(cudaError_t code, const char* what) {
    if (code != cudaSuccess) Fail(std::string(what) + ": CUDA error " + cudaGetErrorString(code));
  }

  void Nccl(ncclResult_t code, const char* what) {
    if (IsFailure(code)) Fail(std::string(what) + " failed: " + ncclGetErrorString(code));
  }

  // Every rank reports `trouble` (empty: ready); all throw when any rank has some.
  void AgreeOrThrow(const std::string& trouble) {
    std::vector<std::vector<char>> all = control->GatherToRoot({trouble.begin(), trouble.end()});
    std::vector<char> verdict;
    for (size_t r = 0; r < all.size() && verdict.empty(); ++r) {
      if (all[r].empty()) continue;
      const std::string text = std::to_string(r) + ":" + std::string(all[r].begin(), all[r].end());
      verdict.assign(text.begin(), text.end());
    }
    verdict = control->BroadcastFromRoot(std::move(verdict));
    if (verdict.empty()) return;
    const std::string text(verdict.begin(), verdict.end());
    const size_t colon = text.find(':');
    const int rank = std::stoi(text.substr(0, colon));
    throw TransportError("rank " + std::to_string(rank) + " of the NCCL communicator could not " +
                             "set up: " + text.substr(colon + 1),
                         rank);
  }

  // Every op starts here: the engine thread owns the device, but CUDA's current device is
  // per-thread state, and a failed communicator must not be touched again.
  void Begin(const char* what) {
    if (failed || comm == nullptr) {
      throw TransportError(std::string("NCCL ") + what +
                           ": the communicator was aborted after an earlier failure");
    }
    Cuda(cudaSetDevice(device), "cudaSetDevice");
  }

  // Waits for the stream, polling NCCL's asynchronous error (a peer or network failure surfaces
  // only there) and the engine timeout.
  void Wait(const char* what) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      cudaError_t state = cudaStreamQuery(stream);
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady) {
        Fail(std::string(what) + ": CUDA error " + cudaGetErrorString(state));
      }
      ncclResult_t async = ncclSuccess;
      Nccl(ncclCommGetAsyncError(comm, &async), "ncclCommGetAsyncError");
      if (IsFailure(async)) {
        Fail(std::string(what) + " failed asynchronously: " + ncclGetErrorString(async));
      }
      const auto waited = std::chrono::steady_clock::now() - start;
      if (waited > options.timeout) {
        Fail(std::string(what) + " did not complete within " +
                 std::to_string(options.timeout.count()) + " ms; a peer stopped responding",
             true);
      }
      if (waited < kSpin) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(kPollInterval);
      }
    }
  }

  // Host bytes -> pinned -> device, asynchronously on the stream. Each op reserves `pinned` for
  // its largest transfer first, so the buffer never moves under an in-flight copy.
  void Upload(char* pinned, const void* src, char* device_dst, size_t bytes) {
    if (bytes == 0) return;
    CopyBytes(pinned, src, bytes);
    Cuda(cudaMemcpyAsync(device_dst, pinned, bytes, cudaMemcpyHostToDevice, stream),
         "cudaMemcpyAsync to the device");
  }

  // Device -> pinned, wait for the stream (and the collective before it), pinned -> host.
  void Download(const char* device_src, char* pinned, void* dst, size_t bytes, const char* what) {
    if (bytes > 0) {
      Cuda(cudaMemcpyAsync(pinned, device_src, bytes, cudaMemcpyDeviceToHost, stream),
           "cudaMemcpyAsync to the host");
    }
    Wait(what);
    if (bytes > 0) CopyBytes(dst, pinned, bytes);
  }
};

NcclTransport::NcclTransport(KeyValueStore& store, std::unique_ptr<Transport> control,
                             const NcclOptions& options)
    : impl_(new Impl) {
  Impl& m = *impl_;
  m.options = options;
  m.control = std::move(control);
  ncclUniqueId id{};
  std::string trouble;
  try {
    m.device = PickDevice(options);
    CheckCuda(cudaSetDevice(m.device), "cudaSetDevice(" + std::to_string(m.device) + ")");
    CheckCuda(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    if (options.rank == 0) {
      ncclResult_t r = ncclGetUniqueId(&id);
      if (r != ncclSuccess) {
        throw std::runtime_error(std::string("ncclGetUniqueId: ") + ncclGetErrorString(r));
      }
      const char* bytes = reinterpret_cast<const char*>(&id);
      store.Set(options.id_key, std::vector<char>(bytes, bytes + sizeof id));
    }
  } catch (const std::exception& e) {
    trouble = *e.what() != '\0' ? e.what() : "unknown error";
  }
  // ncclCommInitRank blocks without a timeout until every rank calls it, so a rank that cannot
  // get there must stop the others first, over the control plane (which has one).
  m.AgreeOrThrow(trouble);
  if (options.rank != 0) {
    std::optional<std::vector<char>> got = store.Get(options.id_key, options.timeout);
    if (!got || got->size() != sizeof id) {
      throw TransportError("the NCCL unique id of rank 0 is missing from the store or has the "
                           "wrong size (every rank must use the same NCCL version)", 0, !got);
    }
    std::memcpy(&id, got->data(), sizeof id);
  }
  ncclResult_t r = ncclCommInitRank(&m.comm, options.size, id, options.rank);
  if (r != ncclSuccess) {
    m.comm = nullptr;
    throw TransportError(std::string("ncclCommInitRank on GPU ") + std::to_string(m.device) +
                         " failed: " + ncclGetErrorString(r) +
                         " (one process per GPU: NCCL rejects two ranks on the same device)");
  }
  // As Horovod does after init: nobody starts a collective before every rank has its comm.
  Barrier();
}

NcclTransport::~NcclTransport() {
  if (impl_->comm != nullptr) cudaSetDevice(impl_->device);
}

TransportCapabilities NcclTransport::Capabilities() const {
  // The CUDA device and stream belong to the engine's thread.
  return {"nccl",
          {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64,
           DataType::kUint8, DataType::kInt8},
          /*any_thread=*/false};
}

std::vector<std::vector<char>> NcclTransport::GatherToRoot(const std::vector<char>& mine) {
  try {
    return impl_->control->GatherToRoot(mine);
  } catch (const TransportError&) {
    impl_->failed = true;
    throw;
  }
}

std::vector<char> NcclTransport::BroadcastFromRoot(std::vector<char> data) {
  try {
    return impl_->control->BroadcastFromRoot(std::move(data));
  } catch (const TransportError&) {
    impl_->failed = true;
    throw;
  }
}

void NcclTransport::Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) {
  if (count == 0) return;
  Impl& m = *impl_;
  m.Begin("allreduce");
  const size_t esize = DataTypeSize(dtype);
  const size_t total = static_cast<size_t>(count);
  const size_t chunk = std::max<size_t>(1, kChunkBytes / esize);
  char* device = m.in.Reserve(std::min(total, chunk) * esize);
  char* pinned = m.host.Reserve(std::min(total, chunk) * esize);
  for (size_t first = 0; first < total; first += chunk) {
    const size_t n = std::min(chunk, total - first);
    char* host = static_cast<char*>(data) + first * esize;
    m.Upload(pinned, host, device, n * esize);
    m.Nccl(ncclAllReduce(device, device, n, TypeOf(dtype), OpOf(op), m.comm, m.stream),
           "ncclAllReduce");
    m.Download(device, pinned, host, n * esize, "allreduce");
  }
}

void NcclTransport::Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                               size_t element_size) {
  Impl& m = *impl_;
  std::vector<size_t> bytes;
  for (size_t c : counts) bytes.push_back(c * element_size);
  const std::vector<size_t> at = Offsets(bytes);
  const size_t total = at.back() + bytes.back();
  if (total == 0) return;
  m.Begin("allgather");
  const int me = m.options.rank;
  char* device = m.out.Reserve(total);
  char* pinned = m.host.Reserve(total);
  m.Upload(pinned, input, device + at[me], bytes[me]);
  const bool even =
      std::all_of(bytes.begin(), bytes.end(), [&](size_t b) { return b == bytes[0]; });
  if (even) {
    m.Nccl(ncclAllGather(device + at[me], device, bytes[0], ncclUint8, m.comm, m.stream),
           "ncclAllGather");
  } else {
    // Uneven counts: every rank broadcasts its block in place, launched as one group.
    m.Nccl(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < static_cast<int>(bytes.size()); ++r) {
      if (bytes[r] == 0) continue;
      m.Nccl(ncclBroadcast(device + at[r], device + at[r], bytes[r], ncclUint8, r, m.comm,
                           m.stream),
             "ncclBroadcast");
    }
    m.Nccl(ncclGroupEnd(), "ncclGroupEnd");
  }
  m.Download(device, pinned, output, total, "allgather");
}

void NcclTransport::Broadcast(void* data, size_t bytes, int root) {
  if (bytes == 0) return;
  Impl& m = *impl_;
  m.Begin("broadcast");
  char* device = m.in.Reserve(std::min(bytes, kChunkBytes));
  char* pinned = m.host.Reserve(std::min(bytes, kChunkBytes));
  for (size_t first = 0; first < bytes; first += kChunkBytes) {
    const size_t n = std::min(kChunkBytes, bytes - first);
    char* host = static_cast<char*>(data) + first;
    if (m.options.rank == root) m.Upload(pinned, host, device, n);
    m.Nccl(ncclBroadcast(device, device, n, ncclUint8, root, m.comm, m.stream), "ncclBroadcast");
    m.Download(device, pinned, host, n, "broadcast");
  }
}

void NcclTransport::Alltoallv(const void* input, const std::vector<int64_t>& send_counts,
                              void* output, const std::vector<int64_t>& recv_counts,
                              size_t element_size) {
  Impl& m = *impl_;
  std::vector<size_t> send, recv;
  for (int64_t c : send_counts) send.push_back(static_cast<size_t>(c) * element_size);
  for (int64_t c : recv_counts) recv.push_back(static_cast<size_t>(c) * element_size);
  const std::vector<size_t> sat = Offsets(send), rat = Offsets(recv);
  const size_t send_total = sat.back() + send.back(), recv_total = rat.back() + recv.back();
  // Point-to-point needs no agreement: a rank with nothing to move skips the op entirely.
  if (send_total == 0 && recv_total == 0) return;
  m.Begin("alltoall");
  const int me = m.options.rank;
  char* in = m.in.Reserve(send_total);
  char* out = m.out.Reserve(recv_total);
  char* pinned = m.host.Reserve(std::max(send_total, recv_total));
  m.Upload(pinned, input, in, send_total);
  if (send[me] > 0) {
    m.Cuda(cudaMemcpyAsync(out + rat[me], in + sat[me], send[me], cudaMemcpyDeviceToDevice,
                           m.stream),
           "cudaMemcpyAsync on the device");
  }
  m.Nccl(ncclGroupStart(), "ncclGroupStart");
  for (int p = 0; p < static_cast<int>(send.size()); ++p) {
    if (p == me) continue;
    if (send[p] > 0) {
      m.Nccl(ncclSend(in + sat[p], send[p], ncclUint8, p, m.comm, m.stream), "ncclSend");
    }
    if (recv[p] > 0) {
      m.Nccl(ncclRecv(out + rat[p], recv[p], ncclUint8, p, m.comm, m.stream), "ncclRecv");
    }
  }
  m.Nccl(ncclGroupEnd(), "ncclGroupEnd");
  m.Download(out, pinned, output, recv_total, "alltoall");
}

void NcclTransport::Barrier() {
  Impl& m = *impl_;
  m.Begin("barrier");
  char* device = m.in.Reserve(sizeof(int32_t));
  m.Nccl(ncclAllReduce(device, device, 1, ncclInt32, ncclSum, m.comm, m.stream), "ncclAllReduce");
  m.Wait("barrier");
}

#endif

}  // namespace kolo

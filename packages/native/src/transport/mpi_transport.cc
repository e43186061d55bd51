#include "transport/mpi_transport.h"

#include <climits>
#include <stdexcept>

#ifdef KOLO_HAVE_MPI
#include <mpi.h>
#endif

namespace kolo {

#ifndef KOLO_HAVE_MPI

bool MpiCompiledIn() { return false; }
void EnsureMpiInitialized() {
  throw std::runtime_error(
      "this build of Kolo has no MPI transport (MPI was not found when it was compiled); install "
      "libopenmpi-dev and rebuild @kolo/native, or use KOLO_TRANSPORT=gloo");
}
void FinalizeMpiIfInitialized() {}
struct MpiTransport::Impl {};
MpiTransport::MpiTransport(const std::vector<int>&) : impl_(nullptr) { EnsureMpiInitialized(); }
MpiTransport::~MpiTransport() = default;
TransportCapabilities MpiTransport::Capabilities() const { return {"mpi", {}}; }
std::vector<std::vector<char>> MpiTransport::GatherToRoot(const std::vector<char>&) { return {}; }
std::vector<char> MpiTransport::BroadcastFromRoot(std::vector<char> d) { return d; }
void MpiTransport::Allreduce(void*, int64_t, DataType, ReduceOp) {}
void MpiTransport::Allgatherv(const void*, void*, const std::vector<size_t>&, size_t) {}
void MpiTransport::Broadcast(void*, size_t, int) {}
void MpiTransport::Alltoallv(const void*, const std::vector<int64_t>&, void*,
                             const std::vector<int64_t>&, size_t) {}
void MpiTransport::Barrier() {}
int MpiTransport::rank() const { return 0; }
int MpiTransport::size() const { return 1; }

#else

namespace {

bool g_initialized_by_kolo = false;

void Check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw TransportError(std::string("MPI ") + what + " failed: " + std::string(text, len));
}

int ToInt(int64_t n, const char* what) {
  if (n > INT_MAX) {
    throw TransportError(std::string("MPI ") + what +
                         " cannot move more than 2^31-1 bytes per rank in one call; use the "
                         "Gloo transport (KOLO_TRANSPORT=gloo) for tensors this large");
  }
  return static_cast<int>(n);
}

MPI_Datatype TypeOf(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return MPI_FLOAT;
    case DataType::kFloat64: return MPI_DOUBLE;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kInt64: return MPI_INT64_T;
    case DataType::kUint8: return MPI_UINT8_T;
    case DataType::kInt8: return MPI_INT8_T;
    case DataType::kFloat16: break;
  }
  throw std::logic_error("float16 must be reduced in float32 by the engine");
}

MPI_Op OpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin: return MPI_MIN;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kProduct: return MPI_PROD;
    default: return MPI_SUM;
  }
}

std::vector<int> Displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

}  // namespace

bool MpiCompiledIn() { return true; }

void EnsureMpiInitialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Init_thread failed");
  }
  g_initialized_by_kolo = true;
  if (provided < MPI_THREAD_SERIALIZED) {
    throw std::runtime_error(
        "the MPI library does not support calls from a background thread "
        "(MPI_THREAD_SERIALIZED); use KOLO_TRANSPORT=gloo");
  }
}

void FinalizeMpiIfInitialized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_initialized_by_kolo && !finalized) MPI_Finalize();
}

struct MpiTransport::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
};

MpiTransport::MpiTransport(const std::vector<int>& ranks) : impl_(new Impl) {
  if (ranks.empty()) {
    Check(MPI_Comm_dup(MPI_COMM_WORLD, &impl_->comm), "Comm_dup");
  } else {
    MPI_Group world, sub;
    Check(MPI_Comm_group(MPI_COMM_WORLD, &world), "Comm_group");
    Check(MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &sub), "Group_incl");
    Check(MPI_Comm_create_group(MPI_COMM_WORLD, sub, 0, &impl_->comm), "Comm_create_group");
    MPI_Group_free(&sub);
    MPI_Group_free(&world);
  }
  MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl_->comm, &impl_->rank);
  MPI_Comm_size(impl_->comm, &impl_->size);
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
  delete impl_;
}

TransportCapabilities MpiTransport::Capabilities() const {
  return {"mpi",
          {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64,
           DataType::kUint8, DataType::kInt8}};
}

std::vector<std::vector<char>> MpiTransport::GatherToRoot(const std::vector<char>& mine) {
  int len = ToInt(static_cast<int64_t>(mine.size()), "gather");
  std::vector<int> lens(impl_->size, 0);
  Check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, impl_->comm), "Gather");
  std::vector<int> displs = Displacements(lens);
  std::vector<char> all(impl_->rank == 0 ? static_cast<size_t>(displs.back() + lens.back()) : 0);
  Check(MPI_Gatherv(mine.data(), len, MPI_BYTE, all.data(), lens.data(), displs.data(), MPI_BYTE,
                    0, impl_->comm),
        "Gatherv");
  std::vector<std::vector<char>> out;
  if (impl_->rank != 0) return out;
  for (int r = 0; r < impl_->size; ++r) {
    out.emplace_back(all.begin() + displs[r], all.begin() + displs[r] + lens[r]);
  }
  return out;
}

std::vector<char> MpiTransport::BroadcastFromRoot(std::vector<char> data) {
  int len = ToInt(static_cast<int64_t>(data.size()), "broadcast");
  Check(MPI_Bcast(&len, 1, MPI_INT, 0, impl_->comm), "Bcast");
  data.resize(static_cast<size_t>(len));
  if (len > 0) Check(MPI_Bcast(data.data(), len, MPI_BYTE, 0, impl_->comm), "Bcast");
  return data;
}

void MpiTransport::Allreduce(void* data, int64_t count, DataType dtype, ReduceOp op) {
  if (count == 0) return;
  Check(MPI_Allreduce(MPI_IN_PLACE, data, ToInt(count, "allreduce"), TypeOf(dtype), OpOf(op),
                      impl_->comm),
        "Allreduce");
}

void MpiTransport::Allgatherv(const void* input, void* output, const std::vector<size_t>& counts,
                              size_t element_size) {
  std::vector<int> bytes;
  for (size_t c : counts) bytes.push_back(ToInt(static_cast<int64_t>(c * element_size), "allgather"));
  std::vector<int> displs = Displacements(bytes);
  Check(MPI_Allgatherv(input, bytes[impl_->rank], MPI_BYTE, output, bytes.data(), displs.data(),
                       MPI_BYTE, impl_->comm),
        "Allgatherv");
}

void MpiTransport::Broadcast(void* data, size_t bytes, int root) {
  if (bytes == 0) return;
  Check(MPI_Bcast(data, ToInt(static_cast<int64_t>(bytes), "broadcast"), MPI_BYTE, root,
                  impl_->comm),
        "Bcast");
}

void MpiTransport::Alltoallv(const void* input, const std::vector<int64_t>& send_counts,
                             void* output, const std::vector<int64_t>& recv_counts,
                             size_t element_size) {
  std::vector<int> send, recv;
  for (int64_t c : send_counts) send.push_back(ToInt(c * static_cast<int64_t>(element_size), "alltoall"));
  for (int64_t c : recv_counts) recv.push_back(ToInt(c * static_cast<int64_t>(element_size), "alltoall"));
  std::vector<int> sd = Displacements(send), rd = Displacements(recv);
  char dummy = 0;
  Check(MPI_Alltoallv(input ? input : &dummy, send.data(), sd.data(), MPI_BYTE,
                      output ? output : &dummy, recv.data(), rd.data(), MPI_BYTE, impl_->comm),
        "Alltoallv");
}

void MpiTransport::Barrier() { Check(MPI_Barrier(impl_->comm), "Barrier"); }
int MpiTransport::rank() const { return impl_->rank; }
int MpiTransport::size() const { return impl_->size; }

#endif

}  // namespace kolo

// How the engine runs each agreed response on the transport: fusion, scaling, float16 staging,
// and the result layout of the variable-sized collectives.
#include <algorithm>
#include <cstring>

#include "engine/engine.h"
#include "engine/kernels.h"

namespace kolo {
namespace {

// Where an allgather of `total` bytes goes: the caller's output where it has exactly that size
// (the binding then returns no data), else a new result, which the caller refuses when it passed
// an output of another size.
char* GatherDestination(TensorEntry& entry, size_t total) {
  if (entry.output != nullptr && entry.output_bytes == total) return static_cast<char*>(entry.output);
  entry.result.Allocate(total);
  return entry.result.data();
}

// Average is a sum followed by a division by the number of ranks (integers truncate).
void Normalise(ReduceOp& op, double& postscale, int size) {
  if (op == ReduceOp::kAverage) {
    op = ReduceOp::kSum;
    postscale /= size;
  }
}

// Where the entries' data lies, one segment per array (a packed group gives one per part), into
// `segments` (cleared first; the engine reuses one vector, so a cycle allocates nothing here).
void Segments(const std::vector<EntryPtr>& entries, size_t esize,
              std::vector<BufferSegment>& segments) {
  segments.clear();
  for (const EntryPtr& e : entries) {
    if (!e->parts.empty()) {
      segments.insert(segments.end(), e->parts.begin(), e->parts.end());
      continue;
    }
    segments.push_back(
        {e->input, e->output, static_cast<size_t>(NumElements(e->request.shape)) * esize});
  }
}

}  // namespace

void Engine::ExecuteAllreduce(Group& g, std::vector<EntryPtr>& entries,
                              const Response& response) {
  ReduceOp op = response.reduce_op;
  double post = response.postscale;
  Normalise(op, post, g.size());
  const DataType dtype = response.dtype;
  const size_t esize = DataTypeSize(dtype);
  int64_t total = 0;
  for (const EntryPtr& e : entries) total += NumElements(e->request.shape);
  tuning_bytes_ += total * static_cast<int64_t>(esize);
  std::vector<BufferSegment>& segments = segments_;
  Segments(entries, esize, segments);

  if (dtype == DataType::kFloat16) {
    std::vector<float> staging(static_cast<size_t>(total));
    float* at = staging.data();
    for (const BufferSegment& s : segments) {
      HalfToFloatBuffer(static_cast<const uint16_t*>(s.in), at, static_cast<int64_t>(s.bytes / 2));
      at += s.bytes / 2;
    }
    ScaleBuffer(staging.data(), total, DataType::kFloat32, response.prescale);
    Phase(entries, AllreduceActivity(g));
    GroupAllreduce(g, staging.data(), total, DataType::kFloat32, op);
    PhaseEnd(entries);
    ScaleBuffer(staging.data(), total, DataType::kFloat32, post);
    at = staging.data();
    for (const BufferSegment& s : segments) {
      FloatToHalfBuffer(at, static_cast<uint16_t*>(s.out), static_cast<int64_t>(s.bytes / 2));
      at += s.bytes / 2;
    }
    return;
  }
  if (segments.size() == 1) {
    const BufferSegment& s = segments[0];
    const void* in = s.in;
    if (response.prescale != 1.0) {
      if (s.out != s.in) CopyBytes(s.out, s.in, s.bytes);
      ScaleBuffer(s.out, total, dtype, response.prescale);
      in = s.out;
    }
    // The transport reads the input where it lies (no copy to the output first) and applies
    // the postscale as it reduces.
    Phase(entries, AllreduceActivity(g));
    GroupAllreduceInto(g, in, s.out, total, dtype, op, post);
    PhaseEnd(entries);
    return;
  }
  if (response.prescale == 1.0 && !timeline_.active() && !Hierarchical(g)) {
    // The transport reads each tensor where it lies and writes each result in place. The path
    // below keeps Horovod's fusion buffer for a prescale, for the hierarchical allreduce (which
    // reduces one contiguous buffer) and for the timeline (which shows its copies).
    g.transport->AllreduceSegments(segments, total, dtype, op, post, fusion_buffer_);
    return;
  }
  const size_t bytes = static_cast<size_t>(total) * esize;
  if (fusion_buffer_.size() < bytes) fusion_buffer_.resize(bytes);
  char* buf = fusion_buffer_.data();
  Phase(entries, "MEMCPY_IN_FUSION_BUFFER");
  size_t offset = 0;
  for (const BufferSegment& s : segments) {
    CopyBytes(buf + offset, s.in, s.bytes);
    offset += s.bytes;
  }
  PhaseEnd(entries);
  ScaleBuffer(buf, total, dtype, response.prescale);
  Phase(entries, AllreduceActivity(g));
  GroupAllreduceInto(g, buf, buf, total, dtype, op, post);
  PhaseEnd(entries);
  Phase(entries, "MEMCPY_OUT_FUSION_BUFFER");
  offset = 0;
  for (const BufferSegment& s : segments) {
    CopyBytes(s.out, buf + offset, s.bytes);
    offset += s.bytes;
  }
  PhaseEnd(entries);
}

void Engine::PerformSpeculated(const std::vector<size_t>& ready, const char* const* published) {
  const size_t n = cache_.size();
  speculated_names_.resize(ready.size());
  for (size_t k = 0; k < ready.size(); ++k) speculated_names_[k] = cache_.NameAt(ready[k]);
  queue_.TakeEach(speculated_names_, speculated_entries_);
  const int size = config_.size;
  for (size_t k = 0; k < ready.size(); ++k) {
    EntryPtr& e = speculated_entries_[k];
    if (!e) continue;  // cannot happen: this rank voted it ready, so it is queued here
    const Response& response = cache_.At(ready[k]);
    if (response.type == RequestType::kBroadcast) {
      // From the root's published bytes; the root itself only copies to a separate output.
      const size_t bytes = static_cast<size_t>(response.sizes[0]) * DataTypeSize(response.dtype);
      const int root = response.root;
      const size_t at = speculated_at_[static_cast<size_t>(root) * n + ready[k]];
      const char* from = root == config_.rank ? static_cast<const char*>(e->input) : published[root] + at;
      if (bytes > 0 && e->output != from) CopyBytes(e->output, from, bytes);
      if (e->owner) sink_->Finish(std::move(e), Status::Ok());
      continue;
    }
    if (response.type == RequestType::kAllgather) {
      PerformSpeculatedAllgather(*e, response, published, ready[k]);
      if (e->owner) sink_->Finish(std::move(e), Status::Ok());
      continue;
    }
    ReduceOp op = response.reduce_op;
    double post = response.postscale;
    Normalise(op, post, size);
    const DataType dtype = response.dtype;
    const size_t esize = DataTypeSize(dtype);
    size_t off = 0;
    auto reduce = [&](void* out, size_t bytes) {
      const int64_t count = static_cast<int64_t>(bytes / esize);
      ReduceInRankOrder(out, size, [&](int r) {
        return published[r] + speculated_at_[static_cast<size_t>(r) * n + ready[k]] + off;
      }, count, dtype, op);
      ScaleBuffer(out, count, dtype, post);
      off += bytes;
    };
    if (e->parts.empty()) {
      reduce(e->output, static_cast<size_t>(NumElements(e->request.shape)) * esize);
    } else {
      for (const BufferSegment& s : e->parts) reduce(s.out, s.bytes);
    }
    tuning_bytes_ += static_cast<int64_t>(off);
    if (e->owner) sink_->Finish(std::move(e), Status::Ok());
  }
  speculated_entries_.clear();
}

void Engine::ExecuteAllgather(Group& g, TensorEntry& entry, const Response& response) {
  const size_t esize = DataTypeSize(response.dtype);
  const int64_t row = RowElements(entry.request.shape);
  std::vector<size_t> counts;
  size_t total = 0;
  for (int64_t rows : response.sizes) {
    counts.push_back(static_cast<size_t>(rows * row));
    total += counts.back();
  }
  entry.result_splits = response.sizes;
  g.transport->Allgatherv(entry.input, GatherDestination(entry, total * esize), counts, esize);
}

// Every rank's rows of cache entry `index` in rank order, this rank's from its input and the
// others' from what they published, where ExecuteAllgather would put them. This rank's own rows go first, with
// memmove: its input may lie inside the output.
void Engine::PerformSpeculatedAllgather(TensorEntry& entry, const Response& response,
                                        const char* const* published, size_t index) {
  const size_t n = cache_.size();
  const size_t row_bytes =
      static_cast<size_t>(RowElements(entry.request.shape)) * DataTypeSize(response.dtype);
  std::vector<size_t>& offsets = gather_offsets_;
  offsets.assign(response.sizes.size() + 1, 0);
  for (size_t r = 0; r < response.sizes.size(); ++r) {
    offsets[r + 1] = offsets[r] + static_cast<size_t>(response.sizes[r]) * row_bytes;
  }
  entry.result_splits = response.sizes;
  char* out = GatherDestination(entry, offsets.back());
  const size_t me = static_cast<size_t>(config_.rank);
  const size_t mine = offsets[me + 1] - offsets[me];
  if (mine > 0) std::memmove(out + offsets[me], entry.input, mine);
  for (size_t r = 0; r + 1 < offsets.size(); ++r) {
    const size_t bytes = offsets[r + 1] - offsets[r];
    if (r == me || bytes == 0) continue;
    CopyBytes(out + offsets[r], published[r] + speculated_at_[r * n + index], bytes);
  }
}

void Engine::ExecuteBroadcast(Group& g, TensorEntry& entry, const Response& response) {
  const size_t bytes =
      static_cast<size_t>(NumElements(entry.request.shape)) * DataTypeSize(response.dtype);
  if (config_.rank == response.root && entry.output != entry.input) {
    CopyBytes(entry.output, entry.input, bytes);
  }
  // Roots are global ranks; the transport numbers the set's members from 0.
  const int root = static_cast<int>(
      std::find(g.ranks.begin(), g.ranks.end(), response.root) - g.ranks.begin());
  g.transport->Broadcast(entry.output, bytes, root);
}

void Engine::ExecuteAlltoall(Group& g, TensorEntry& entry, const Response& response) {
  const int size = g.size();
  const int me = g.rank;
  const int64_t row = RowElements(entry.request.shape);
  std::vector<int64_t> send(size), recv(size);
  int64_t recv_total = 0, everything = 0;
  entry.result_splits.assign(size, 0);
  for (int r = 0; r < size; ++r) {
    send[r] = response.splits[me * size + r] * row;
    recv[r] = response.splits[r * size + me] * row;
    entry.result_splits[r] = response.splits[r * size + me];
    recv_total += recv[r];
  }
  for (int64_t rows : response.splits) everything += rows;
  const size_t esize = DataTypeSize(response.dtype);
  entry.result.Allocate(static_cast<size_t>(recv_total) * esize);
  if (everything == 0) return;
  g.transport->Alltoallv(entry.input, send,
                                   entry.result.empty() ? nullptr : entry.result.data(), recv,
                                   esize);
}

void Engine::ExecuteReducescatter(Group& g, TensorEntry& entry, const Response& response) {
  // Reduce the whole tensor, then keep this rank's rows. This moves twice the minimum bytes;
  // a ring reduce-scatter is tracked in issue #9.
  const int64_t total = NumElements(entry.request.shape);
  const size_t esize = DataTypeSize(response.dtype);
  std::vector<char> whole(static_cast<size_t>(total) * esize);
  CopyBytes(whole.data(), entry.input, whole.size());
  EntryPtr scratch = std::make_unique<TensorEntry>();
  scratch->request = entry.request;
  scratch->input = whole.data();
  scratch->output = whole.data();
  std::vector<EntryPtr> one;
  one.push_back(std::move(scratch));
  ExecuteAllreduce(g, one, response);

  const int64_t dim0 = entry.request.shape[0];
  const int64_t row = RowElements(entry.request.shape);
  const int64_t base = dim0 / g.size(), extra = dim0 % g.size();
  const int64_t r = g.rank;
  const int64_t rows = base + (r < extra ? 1 : 0);
  const int64_t start = r * base + std::min(r, extra);
  entry.result.Assign(whole.data() + start * row * static_cast<int64_t>(esize),
                      whole.data() + (start + rows) * row * static_cast<int64_t>(esize));
}

}  // namespace kolo

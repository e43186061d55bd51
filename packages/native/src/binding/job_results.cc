// What a finished call resolves with (JobResults, CarriesResult) and how a failed Status
// becomes a JS error (StatusToError); the reading of calls is convert.cc.
#include <string>
#include <vector>

#include "binding/job.h"
#include "engine/kernels.h"

namespace kolo {

Napi::Error StatusToError(Napi::Env env, const Status& status) {
  Napi::Error err = Napi::Error::New(env, status.message);
  err.Set("code", Napi::String::New(env, StatusCodeName(status.code)));
  if (status.failed_rank >= 0) err.Set("failedRank", Napi::Number::New(env, status.failed_rank));
  return err;
}

namespace {

// A result's bytes as a new ArrayBuffer. Not zeroed first (as napi_create_arraybuffer's are):
// a Node Buffer's memory comes uninitialized, and the copy writes every byte. Not the engine's
// own buffer handed over with a finalizer either: Node runs such finalizers on a later turn of
// the event loop, so a synchronous loop of large allgathers would hold every result until then.
Napi::ArrayBuffer ResultArrayBuffer(Napi::Env env, const ResultBuffer& result) {
  const size_t bytes = result.size();
  void* data = nullptr;
  napi_value buffer, arraybuffer;
  napi_typedarray_type type;
  size_t length = 0, offset = 0;
  if (bytes > 0 && napi_create_buffer(env, bytes, &data, &buffer) == napi_ok &&
      napi_get_typedarray_info(env, buffer, &type, &length, &data, &arraybuffer, &offset) == napi_ok &&
      offset == 0 && Napi::ArrayBuffer(env, arraybuffer).ByteLength() == bytes) {
    CopyBytes(data, result.data(), bytes);
    return Napi::ArrayBuffer(env, arraybuffer);
  }
  Napi::ArrayBuffer fresh = Napi::ArrayBuffer::New(env, bytes);
  if (bytes > 0) CopyBytes(fresh.Data(), result.data(), bytes);
  return fresh;
}

}  // namespace

namespace {
// An allgather the engine wrote into the caller's output (GatherDestination: the output has
// exactly the gathered size) whose rows have elements: the caller knows its value from the
// output's length (rows = length / elements per row), so it needs no splits, and a repeated
// call settles as done (no maker call, no settle call: about a quarter of a 4 KiB allgather).
bool GatheredIntoOutput(const TensorEntry& e) {
  if (e.output == nullptr || !e.result.empty()) return false;
  const int64_t row = RowElements(e.request.shape);
  int64_t rows = 0;
  for (int64_t s : e.result_splits) rows += s;
  return row > 0 && e.output_bytes == static_cast<size_t>(rows * row) * DataTypeSize(e.request.dtype);
}
}  // namespace

bool CarriesResult(const TensorEntry* e) {
  if (e == nullptr) return false;
  const RequestType t = e->request.type;
  if (t == RequestType::kAllgather && GatheredIntoOutput(*e)) return false;
  return t == RequestType::kAllgather || t == RequestType::kAlltoall ||
         t == RequestType::kReducescatter || t == RequestType::kJoin || !e->result_splits.empty();
}

namespace {
// Whether the result carries bytes: an allgather's (but one that wrote into the caller's output),
// an alltoall's or a reducescatter's.
bool CarriesData(const TensorEntry& e) {
  const RequestType t = e.request.type;
  const bool into_output = t == RequestType::kAllgather && e.output != nullptr && e.result.empty();
  return (t == RequestType::kAllgather && !into_output) || t == RequestType::kAlltoall ||
         t == RequestType::kReducescatter;
}

// The results of a job whose one request carries per-rank sizes, from maker(data, ...splits).
Napi::Value MadeResults(Napi::Env env, const TensorEntry& e, napi_value maker) {
  std::vector<napi_value> args;
  args.reserve(1 + e.result_splits.size());
  args.push_back(CarriesData(e) ? Napi::Value(ResultArrayBuffer(env, e.result)) : env.Undefined());
  for (int64_t s : e.result_splits) args.push_back(Napi::Number::New(env, static_cast<double>(s)));
  napi_value results;
  if (napi_call_function(env, env.Undefined(), maker, args.size(), args.data(), &results) != napi_ok) {
    throw Napi::Error::New(env);
  }
  return Napi::Value(env, results);
}
}  // namespace

Napi::Value JobResults(Napi::Env env, Job& job, napi_value empty, napi_value maker) {
  if (maker != nullptr && job.done.size() == 1 && job.done[0] != nullptr &&
      job.done[0]->request.type != RequestType::kJoin && !job.done[0]->result_splits.empty()) {
    return MadeResults(env, *job.done[0], maker);
  }
  Napi::Array results = Napi::Array::New(env, job.done.size());
  for (size_t i = 0; i < job.done.size(); ++i) {
    TensorEntry* e = job.done[i].get();
    const RequestType t = e != nullptr ? e->request.type : RequestType::kAllreduce;
    if (!CarriesResult(e) && empty != nullptr) {
      results.Set(i, Napi::Value(env, empty));
      continue;
    }
    Napi::Object r = Napi::Object::New(env);
    if (e != nullptr) {
      if (CarriesData(*e)) r.Set("data", ResultArrayBuffer(env, e->result));
      if (!e->result_splits.empty()) {
        Napi::Array splits = Napi::Array::New(env, e->result_splits.size());
        for (size_t k = 0; k < e->result_splits.size(); ++k) {
          splits.Set(k, Napi::Number::New(env, static_cast<double>(e->result_splits[k])));
        }
        r.Set("splits", splits);
      }
      if (t == RequestType::kJoin) r.Set("lastJoinedRank", Napi::Number::New(env, e->last_joined_rank));
    }
    results.Set(i, r);
  }
  return results;
}

}  // namespace kolo

#include <cstring>
#include <string>

#include "binding/job.h"

namespace kolo {
namespace {

double NumberField(const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : fallback;
}

std::vector<int64_t> IntArrayField(Napi::Env env, const Napi::Object& o, const char* key) {
  std::vector<int64_t> out;
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return out;
  if (!v.IsArray()) {
    throw Napi::TypeError::New(env, std::string("Expected an array for ") + key);
  }
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) {
    out.push_back(static_cast<int64_t>(a.Get(i).As<Napi::Number>().DoubleValue()));
  }
  return out;
}

struct View {
  void* data = nullptr;  // may be null for an empty array
  size_t bytes = 0;
  bool present = false;
};

View ReadArray(Napi::Env env, const Napi::Object& o, const char* key, const std::string& name) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return {};
  if (!v.IsTypedArray()) {
    throw Napi::TypeError::New(env, std::string("Expected a TypedArray for ") + key + " of '" +
                                        name + "'");
  }
  // napi_get_typedarray_info also covers SharedArrayBuffer-backed arrays, whose buffer
  // node-addon-api's ArrayBuffer() cannot wrap. `data` already includes the byte offset.
  napi_typedarray_type type;
  size_t length = 0, byte_offset = 0;
  void* data = nullptr;
  napi_value buffer;
  if (napi_get_typedarray_info(env, v, &type, &length, &data, &buffer, &byte_offset) != napi_ok) {
    throw Napi::TypeError::New(env, std::string("Cannot read the TypedArray ") + key + " of '" +
                                        name + "'");
  }
  return {data, v.As<Napi::TypedArray>().ByteLength(), true};
}

}  // namespace

std::vector<EntryPtr> ReadRequests(Napi::Env env, Napi::Array requests, bool grouped,
                                   const JobPtr& job, bool pin) {
  std::vector<EntryPtr> entries;
  const uint32_t n = requests.Length();
  std::string group;
  for (uint32_t i = 0; i < n; ++i) {
    Napi::Object o = requests.Get(i).As<Napi::Object>();
    auto e = std::make_unique<TensorEntry>();
    Request& r = e->request;
    r.type = static_cast<RequestType>(static_cast<int>(NumberField(o, "type", 0)));
    r.dtype = static_cast<DataType>(static_cast<int>(NumberField(o, "dtype", 0)));
    r.name = o.Get("name").As<Napi::String>().Utf8Value();
    r.shape = IntArrayField(env, o, "shape");
    int op = static_cast<int>(NumberField(o, "reduceOp", 1));
    if (!IsValidReduceOp(op)) throw Napi::TypeError::New(env, "Unknown reduceOp " + std::to_string(op));
    r.reduce_op = static_cast<ReduceOp>(op);
    r.root = static_cast<int32_t>(NumberField(o, "root", 0));
    r.prescale = NumberField(o, "prescale", 1.0);
    r.postscale = NumberField(o, "postscale", 1.0);
    r.splits = IntArrayField(env, o, "splits");
    r.process_set = static_cast<int32_t>(NumberField(o, "processSet", 0));
    if (static_cast<int>(r.type) >= kNumRequestTypes ||
        static_cast<int>(r.dtype) >= kNumDataTypes) {
      throw Napi::TypeError::New(env, "Unknown request type or dtype for '" + r.name + "'");
    }
    if (r.type == RequestType::kJoin) r.name = kJoinName;
    if (grouped && n > 1) {
      if (i == 0) group = r.name + "#group";
      r.group = group;
      r.group_size = static_cast<int32_t>(n);
    }
    const bool needs_data = r.type != RequestType::kBarrier && r.type != RequestType::kJoin &&
                            r.type != RequestType::kAddProcessSet &&
                            r.type != RequestType::kRemoveProcessSet;
    if (needs_data) {
      View in = ReadArray(env, o, "input", r.name);
      const size_t want = static_cast<size_t>(NumElements(r.shape)) * DataTypeSize(r.dtype);
      if (in.bytes != want) {
        throw Napi::TypeError::New(env, "Expected input of " + std::to_string(want) +
                                            " bytes for '" + r.name + "' (shape " +
                                            ShapeString(r.shape) + ") but received " +
                                            std::to_string(in.bytes));
      }
      e->input = in.data;
      View out = ReadArray(env, o, "output", r.name);
      if (r.type == RequestType::kAllreduce || r.type == RequestType::kBroadcast) {
        if (!out.present || out.bytes != want) {
          throw Napi::TypeError::New(env, "Expected an output of " + std::to_string(want) +
                                              " bytes for '" + r.name + "'");
        }
        e->output = out.data;
      }
      if (pin) {
        job->pinned.push_back(Napi::Persistent(o.Get("input")));
        if (out.present) job->pinned.push_back(Napi::Persistent(o.Get("output")));
      }
    }
    e->owner = job;
    e->index = static_cast<int>(i);
    entries.push_back(std::move(e));
  }
  job->remaining = static_cast<int>(n);
  job->done.resize(n);
  return entries;
}

Napi::Error StatusToError(Napi::Env env, const Status& status) {
  Napi::Error err = Napi::Error::New(env, status.message);
  err.Set("code", Napi::String::New(env, StatusCodeName(status.code)));
  if (status.failed_rank >= 0) err.Set("failedRank", Napi::Number::New(env, status.failed_rank));
  return err;
}

Napi::Value JobResults(Napi::Env env, Job& job) {
  Napi::Array results = Napi::Array::New(env, job.done.size());
  for (size_t i = 0; i < job.done.size(); ++i) {
    Napi::Object r = Napi::Object::New(env);
    TensorEntry* e = job.done[i].get();
    if (e != nullptr) {
      RequestType t = e->request.type;
      if (t == RequestType::kAllgather || t == RequestType::kAlltoall ||
          t == RequestType::kReducescatter) {
        Napi::ArrayBuffer buf = Napi::ArrayBuffer::New(env, e->result.size());
        if (!e->result.empty()) std::memcpy(buf.Data(), e->result.data(), e->result.size());
        r.Set("data", buf);
      }
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

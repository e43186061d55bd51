// Module entry: constants, capabilities() and startEngine(). The only other file that includes
// napi.h is the engine wrapper; the engine itself never sees N-API.
#include <napi.h>

#include <set>

#include "binding/engine_wrap.h"
#include "transport/mpi_transport.h"
#include "transport/nccl_transport.h"

namespace kolo {
namespace {

struct AddonData {
  Napi::FunctionReference engine_ctor;
};

// At environment teardown (process exit without shutdown()), stop every engine with a
// coordinated shutdown, as Horovod's atexit hook does, then finalise MPI if Kolo started it.
void Teardown(void*) {
  EngineWrap::StopAll();
  FinalizeMpiIfInitialized();
}

Napi::Object Table(Napi::Env env, const std::vector<std::pair<const char*, int>>& rows) {
  Napi::Object o = Napi::Object::New(env);
  for (const auto& [name, value] : rows) o.Set(name, Napi::Number::New(env, value));
  o.Freeze();
  return o;
}

Napi::Array Strings(Napi::Env env, const std::vector<std::string>& items) {
  Napi::Array a = Napi::Array::New(env, items.size());
  for (size_t i = 0; i < items.size(); ++i) a.Set(i, Napi::String::New(env, items[i]));
  return a;
}

std::vector<std::string> AllDtypes() {
  std::vector<std::string> out;
  for (int d = 0; d < kNumDataTypes; ++d) out.push_back(DataTypeName(static_cast<DataType>(d)));
  return out;
}

Napi::Value Constants(Napi::Env env) {
  Napi::Object c = Napi::Object::New(env);
  std::vector<std::pair<const char*, int>> dtypes, types;
  for (int d = 0; d < kNumDataTypes; ++d) dtypes.push_back({DataTypeName(static_cast<DataType>(d)), d});
  for (int t = 0; t < kNumRequestTypes; ++t) {
    types.push_back({RequestTypeJsName(static_cast<RequestType>(t)), t});
  }
  c.Set("dtypes", Table(env, dtypes));
  c.Set("requestTypes", Table(env, types));
  std::vector<std::pair<const char*, int>> ops;
  for (ReduceOp op : {ReduceOp::kAverage, ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax,
                      ReduceOp::kProduct}) {
    ops.push_back({ReduceOpJsName(op), static_cast<int>(op)});
  }
  c.Set("reduceOps", Table(env, ops));
  std::vector<std::string> codes;
  for (int s = 1; s <= static_cast<int>(StatusCode::kInternal); ++s) {
    codes.push_back(StatusCodeName(static_cast<StatusCode>(s)));
  }
  c.Set("errorCodes", Strings(env, codes));
  c.Freeze();
  return c;
}

Napi::Value Capabilities(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  std::vector<std::string> transports{"gloo"};
  if (MpiCompiledIn()) transports.push_back("mpi");
  if (NcclCompiledIn()) transports.push_back("nccl");
  o.Set("transports", Strings(env, transports));
  o.Set("dtypes", Strings(env, AllDtypes()));
  std::vector<std::string> ops;
  for (int t = 0; t < kNumRequestTypes; ++t) ops.push_back(RequestTypeJsName(static_cast<RequestType>(t)));
  o.Set("ops", Strings(env, ops));
  o.Set("reduceOps", Strings(env, {"average", "sum", "min", "max", "product"}));
  return o;
}

Napi::Value StartEngine(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    throw Napi::TypeError::New(env, "Expected a config object for startEngine");
  }
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  Napi::Object obj = env.GetInstanceData<AddonData>()->engine_ctor.New({});
  EngineWrap* wrap = EngineWrap::Unwrap(obj);
  wrap->Start(env, info[0].As<Napi::Object>(), deferred);
  return deferred.Promise();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  data->engine_ctor = Napi::Persistent(EngineWrap::Define(env));
  env.SetInstanceData<AddonData>(data);
  napi_add_env_cleanup_hook(env, Teardown, nullptr);
  exports.Set("constants", Constants(env));
  exports.Set("capabilities", Napi::Function::New(env, Capabilities, "capabilities"));
  exports.Set("startEngine", Napi::Function::New(env, StartEngine, "startEngine"));
  return exports;
}

}  // namespace
}  // namespace kolo

static Napi::Object InitKolo(Napi::Env env, Napi::Object exports) {
  return kolo::Init(env, exports);
}

NODE_API_MODULE(kolo_native, InitKolo)

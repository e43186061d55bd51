// Each engine's own enqueue functions (EngineWrap::DefineDirect): the methods a step calls, as
// functions that reach their engine through their data pointer instead of napi_unwrap.
#include "binding/engine_wrap.h"

namespace kolo {

template <Napi::Value (EngineWrap::*Method)(const Napi::CallbackInfo&)>
Napi::Value EngineWrap::CallDirect(const Napi::CallbackInfo& info) {
  auto* direct = static_cast<Direct*>(info.Data());
  if (direct->wrap == nullptr) {
    throw Napi::Error::New(info.Env(), "This Kolo engine was garbage-collected; call it through the engine object.");
  }
  return (direct->wrap->*Method)(info);
}

void EngineWrap::ReleaseDirect(Direct* direct) {
  if (--direct->refs == 0) delete direct;
}

void EngineWrap::ForgetDirect() {
  if (direct_ == nullptr) return;
  direct_->wrap = nullptr;  // a function kept past the engine now throws
  ReleaseDirect(direct_);
  direct_ = nullptr;
}

void EngineWrap::DefineDirect(Napi::Env env, Napi::Object self) {
  direct_ = new Direct{this, 1};
  const auto define = [&](const char* name, Napi::Function fn) {
    ++direct_->refs;
    const napi_status added = napi_add_finalizer(
        env, fn, direct_, [](napi_env, void* data, void*) { ReleaseDirect(static_cast<Direct*>(data)); },
        nullptr, nullptr);
    if (added != napi_ok) {
      --direct_->refs;
      return;  // the prototype's method stays the one called
    }
    // As a class method: writable and configurable, not enumerable.
    self.DefineProperty(Napi::PropertyDescriptor::Value(
        name, fn, static_cast<napi_property_attributes>(napi_writable | napi_configurable)));
  };
  define("enqueuePacked", Napi::Function::New<CallDirect<&EngineWrap::EnqueueBatch>>(env, "enqueuePacked", direct_));
  define("enqueueSyncPacked", Napi::Function::New<CallDirect<&EngineWrap::EnqueueSync>>(env, "enqueueSyncPacked", direct_));
  define("enqueueRepeat", Napi::Function::New<CallDirect<&EngineWrap::EnqueueRepeat>>(env, "enqueueRepeat", direct_));
  define("enqueueSyncRepeat", Napi::Function::New<CallDirect<&EngineWrap::EnqueueSyncRepeat>>(env, "enqueueSyncRepeat", direct_));
}

}  // namespace kolo

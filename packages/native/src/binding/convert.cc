#include <cstring>
#include <string>

#include "binding/job.h"
#include "engine/kernels.h"

namespace kolo {
namespace {

// Raw N-API below: node-addon-api's Get/Is*/As chains cost three or four calls per field, and a
// batch reads a few hundred requests per JS turn. A failed call throws what JS threw (a getter,
// a Proxy) or N-API's own message, as node-addon-api would.
napi_value Property(Napi::Env env, napi_value object, napi_value key) {
  napi_value value;
  if (napi_get_property(env, object, key, &value) != napi_ok) throw Napi::Error::New(env);
  return value;
}

double NumberOr(Napi::Env env, napi_value value, double fallback) {
  double d;
  return napi_get_value_double(env, value, &d) == napi_ok ? d : fallback;
}

bool IsUndefined(Napi::Env env, napi_value value) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  return type == napi_undefined;
}

std::string Utf8(Napi::Env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, nullptr, 0, &length) != napi_ok) {
    throw Napi::Error::New(env);
  }
  std::string out(length, '\0');
  napi_get_value_string_utf8(env, value, out.data(), length + 1, &length);
  return out;
}

// Appends UTF-16 code units as UTF-8, as V8 writes a string (a lone surrogate becomes U+FFFD).
void AppendUtf8(const char16_t* units, size_t n, std::string& out) {
  size_t ascii = 0;
  while (ascii < n && units[ascii] < 0x80) ++ascii;
  const size_t at = out.size();
  if (ascii == n) {  // most names
    out.resize(at + n);
    for (size_t i = 0; i < n; ++i) out[at + i] = static_cast<char>(units[i]);
    return;
  }
  out.reserve(at + n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t c = units[i];
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (units[++i] - 0xDC00);
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      c = 0xFFFD;
    }
    if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    }
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::vector<int64_t> IntArray(Napi::Env env, napi_value value, const char* key) {
  std::vector<int64_t> out;
  bool is_array = false;
  napi_is_array(env, value, &is_array);
  if (!is_array) {
    if (IsUndefined(env, value)) return out;
    throw Napi::TypeError::New(env, std::string("Expected an array for ") + key);
  }
  uint32_t length = 0;
  napi_get_array_length(env, value, &length);
  out.reserve(length);
  for (uint32_t i = 0; i < length; ++i) {
    napi_value element;
    double d;
    if (napi_get_element(env, value, i, &element) != napi_ok ||
        napi_get_value_double(env, element, &d) != napi_ok) {
      throw Napi::Error::New(env);
    }
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

size_t ElementBytes(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array:
      return 8;
  }
  return 0;
}

// A typed array's bytes, or false when `value` is not one.
bool ViewOf(Napi::Env env, napi_value value, View* view) {
  // Node's napi_get_buffer_info takes any ArrayBufferView (its documentation names Buffer and
  // Uint8Array) and answers with a few checks, where napi_get_typedarray_info tests the value
  // against each typed array class in turn: about 700 instructions for a Float32Array, three
  // times per allreduce (the batch's numbers, the input, the output). Where it refuses the
  // value, the general path below decides.
  void* bytes_at = nullptr;
  size_t byte_length = 0;
  if (napi_get_buffer_info(env, value, &bytes_at, &byte_length) == napi_ok) {
    bool dataview = false;
    if (napi_is_dataview(env, value, &dataview) == napi_ok && !dataview) {
      *view = {bytes_at, byte_length, true};
      return true;
    }
  }
  // napi_get_typedarray_info also covers SharedArrayBuffer-backed arrays, whose buffer
  // node-addon-api's ArrayBuffer() cannot wrap. `data` already includes the byte offset.
  napi_typedarray_type type;
  size_t length = 0, byte_offset = 0;
  void* data = nullptr;
  napi_value buffer;
  if (napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, &byte_offset) !=
      napi_ok) {
    return false;
  }
  const size_t element = ElementBytes(type);
  const size_t bytes = element != 0 ? length * element : Napi::TypedArray(env, value).ByteLength();
  *view = {data, bytes, true};
  return true;
}

View ReadArray(Napi::Env env, napi_value value, const char* key, const std::string& name) {
  View view;
  if (ViewOf(env, value, &view)) return view;
  if (IsUndefined(env, value)) return {};
  bool is_typed = false;
  napi_is_typedarray(env, value, &is_typed);
  if (!is_typed) {
    throw Napi::TypeError::New(env, std::string("Expected a TypedArray for ") + key + " of '" +
                                        name + "'");
  }
  throw Napi::TypeError::New(env, std::string("Cannot read the TypedArray ") + key + " of '" +
                                      name + "'");
}

napi_value Key(Napi::Env env, const char* name) {
  napi_value key;
  if (napi_create_string_latin1(env, name, NAPI_AUTO_LENGTH, &key) != napi_ok) {
    throw Napi::Error::New(env);
  }
  return key;
}

// The property names of a NativeRequest as JS strings, made once per call into the binding:
// reading a property by C string makes V8 look the name up in its string table every time.
struct RequestKeys {
  explicit RequestKeys(Napi::Env env);
  napi_value type, name, dtype, shape, reduce_op, root, prescale, postscale, splits, process_set,
      input, output, parts;
};

RequestKeys::RequestKeys(Napi::Env env)
    : type(Key(env, "type")),
      name(Key(env, "name")),
      dtype(Key(env, "dtype")),
      shape(Key(env, "shape")),
      reduce_op(Key(env, "reduceOp")),
      root(Key(env, "root")),
      prescale(Key(env, "prescale")),
      postscale(Key(env, "postscale")),
      splits(Key(env, "splits")),
      process_set(Key(env, "processSet")),
      input(Key(env, "input")),
      output(Key(env, "output")),
      parts(Key(env, "parts")) {}

bool NeedsData(RequestType type) {
  return type != RequestType::kBarrier && type != RequestType::kJoin &&
         type != RequestType::kAddProcessSet && type != RequestType::kRemoveProcessSet;
}

// The JS arrays of one request: `at(0)` and `at(1)` its input and output, and for a packed
// group (parts) `at(2 * i)` and `at(2 * i + 1)` those of part i.
// A reference to a callable, which unlike std::function never allocates (a lambda that captures
// a few references does not fit std::function's inline buffer).
class ArrayAt {
 public:
  template <typename F>
  ArrayAt(const F& f)  // NOLINT(google-explicit-constructor): used as a parameter type
      : target_(&f), call_([](const void* t, size_t k) { return (*static_cast<const F*>(t))(k); }) {}
  napi_value operator()(size_t k) const { return call_(target_, k); }

 private:
  const void* target_;
  napi_value (*call_)(const void*, size_t);
};

// Where a request's arrays come from: read from JS through `at` (and, with `record`, written to
// `record[k]` as read), or, with `known`, the views read when the same batch was queued before.
struct Slots {
  const ArrayAt& at;
  View* record = nullptr;
  const View* known = nullptr;
};

// Slot k's array; `key()` names it in the error when it is not a typed array.
template <typename Key>
View SlotView(Napi::Env env, const Slots& slots, size_t k, const Key& key, const std::string& name) {
  if (slots.known != nullptr) return slots.known[k];
  const napi_value value = slots.at(k);
  View view;
  if (!ViewOf(env, value, &view)) view = ReadArray(env, value, key(), name);
  if (slots.record != nullptr) slots.record[k] = view;
  return view;
}

// Reads a packed group's arrays into `e->parts`, checked against the shapes in `parts`.
void ReadParts(Napi::Env env, TensorEntry& e, const Slots& slots) {
  const Request& r = e.request;
  if (r.type != RequestType::kAllreduce) {
    throw Napi::TypeError::New(env, "Expected parts only on an allreduce ('" + r.name + "')");
  }
  const size_t esize = DataTypeSize(r.dtype);
  int64_t total = 0;
  size_t i = 0;
  for (size_t k = 0; k < r.parts.size(); ++i) {
    // The batch reader checked that the ranks and dimensions add up.
    const auto rank = static_cast<size_t>(r.parts[k++]);
    int64_t n = 1;
    for (size_t d = 0; d < rank; ++d) n *= r.parts[k++];
    const size_t want = static_cast<size_t>(n) * esize;
    std::string label;  // built only for an array that is not one
    const auto key = [&](const char* which) {
      label = std::string(which) + " of part " + std::to_string(i + 1);
      return label.c_str();
    };
    const View in = SlotView(env, slots, 2 * i, [&] { return key("input"); }, r.name);
    const View out = SlotView(env, slots, 2 * i + 1, [&] { return key("output"); }, r.name);
    if (!in.present || in.bytes != want || !out.present || out.bytes != want) {
      throw Napi::TypeError::New(env, "Expected an input and an output of " + std::to_string(want) +
                                          " bytes for part " + std::to_string(i + 1) + " of '" +
                                          r.name + "' but received " + std::to_string(in.bytes) +
                                          " and " + std::to_string(out.bytes));
    }
    e.parts.push_back({in.data, out.data, want});
    total += n;
  }
  if (r.shape.size() != 1 || r.shape[0] != total) {
    throw Napi::TypeError::New(env, "Expected shape [" + std::to_string(total) + "] for '" +
                                        r.name + "' (the total of its parts) but received " +
                                        ShapeString(r.shape));
  }
}

// Checks a request whose fields were read (from an object or a packed batch) and makes it the
// `index`th entry of `job`, with its arrays from `slots` (read only for requests that move
// data).
EntryPtr MakeEntry(Napi::Env env, Request&& request, int reduce_op, const Slots& slots,
                   const JobPtr& job, int index, bool pin) {
  if (!IsValidReduceOp(reduce_op)) {
    throw Napi::TypeError::New(env, "Unknown reduceOp " + std::to_string(reduce_op));
  }
  auto e = std::make_unique<TensorEntry>();
  Request& r = e->request;
  r = std::move(request);
  r.reduce_op = static_cast<ReduceOp>(reduce_op);
  if (static_cast<int>(r.type) >= kNumRequestTypes || static_cast<int>(r.dtype) >= kNumDataTypes) {
    throw Napi::TypeError::New(env, "Unknown request type or dtype for '" + r.name + "'");
  }
  if (r.type == RequestType::kJoin) r.name = kJoinName;
  if (!r.parts.empty()) {
    ReadParts(env, *e, slots);  // pinned by the batch's array of arrays (packed calls only)
  } else if (NeedsData(r.type)) {
    const View in = SlotView(env, slots, 0, [] { return "input"; }, r.name);
    const size_t want = static_cast<size_t>(NumElements(r.shape)) * DataTypeSize(r.dtype);
    if (in.bytes != want) {
      throw Napi::TypeError::New(env, "Expected input of " + std::to_string(want) +
                                          " bytes for '" + r.name + "' (shape " +
                                          ShapeString(r.shape) + ") but received " +
                                          std::to_string(in.bytes));
    }
    e->input = in.data;
    const View out = SlotView(env, slots, 1, [] { return "output"; }, r.name);
    if (r.type == RequestType::kAllreduce || r.type == RequestType::kBroadcast) {
      if (!out.present || out.bytes != want) {
        throw Napi::TypeError::New(env, "Expected an output of " + std::to_string(want) +
                                            " bytes for '" + r.name + "'");
      }
      e->output = out.data;
    } else if (r.type == RequestType::kAllgather && out.present) {
      e->output = out.data;
      e->output_bytes = out.bytes;
    }
    if (pin) {
      job->pinned.push_back(Napi::Persistent(Napi::Value(env, slots.at(0))));
      if (out.present) job->pinned.push_back(Napi::Persistent(Napi::Value(env, slots.at(1))));
    }
  }
  e->owner = job;
  e->index = index;
  return e;
}

// Marks the entries of a grouped call as one group and sizes `job` for them.
void FinishCall(std::vector<EntryPtr>& entries, bool grouped, const JobPtr& job) {
  const size_t n = entries.size();
  if (grouped && n > 1) {
    const std::string group = entries[0]->request.name + "#group";
    for (EntryPtr& e : entries) {
      e->request.group = group;
      e->request.group_size = static_cast<int32_t>(n);
    }
  }
  job->remaining.store(static_cast<int>(n), std::memory_order_relaxed);  // published by the queue lock
  job->done.resize(n);
}

}  // namespace

std::vector<EntryPtr> ReadRequests(Napi::Env env, Napi::Array requests, bool grouped,
                                   const JobPtr& job, bool pin) {
  const RequestKeys keys(env);
  std::vector<EntryPtr> entries;
  uint32_t n = 0;
  if (napi_get_array_length(env, requests, &n) != napi_ok) throw Napi::Error::New(env);
  entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    napi_value o;
    if (napi_get_element(env, requests, i, &o) != napi_ok) throw Napi::Error::New(env);
    Request r;
    r.type = static_cast<RequestType>(static_cast<int>(NumberOr(env, Property(env, o, keys.type), 0)));
    r.dtype = static_cast<DataType>(static_cast<int>(NumberOr(env, Property(env, o, keys.dtype), 0)));
    r.name = Utf8(env, Property(env, o, keys.name));
    r.shape = IntArray(env, Property(env, o, keys.shape), "shape");
    const int op = static_cast<int>(NumberOr(env, Property(env, o, keys.reduce_op), 1));
    r.root = static_cast<int32_t>(NumberOr(env, Property(env, o, keys.root), 0));
    r.prescale = NumberOr(env, Property(env, o, keys.prescale), 1.0);
    r.postscale = NumberOr(env, Property(env, o, keys.postscale), 1.0);
    r.splits = IntArray(env, Property(env, o, keys.splits), "splits");
    r.process_set = static_cast<int32_t>(NumberOr(env, Property(env, o, keys.process_set), 0));
    if (!IsUndefined(env, Property(env, o, keys.parts))) {
      throw Napi::TypeError::New(env, "A request with parts (a packed group) goes through "
                                      "enqueueBatch or enqueueSync, not enqueue ('" + r.name + "')");
    }
    const auto at = [&](size_t k) { return Property(env, o, k == 0 ? keys.input : keys.output); };
    entries.push_back(MakeEntry(env, std::move(r), op, Slots{at}, job, static_cast<int>(i), pin));
  }
  FinishCall(entries, grouped, job);
  return entries;
}

void ReadPackedBatch(Napi::Env env, const Napi::CallbackInfo& info, size_t first_array_arg,
                     PackedBatch& batch) {
  const auto malformed = [&](const std::string& why) {
    return Napi::TypeError::New(env, "Expected a batch from packBatch() for enqueuePacked (" + why + ")");
  };
  batch.calls.clear();
  batch.array_args.clear();
  // Any typed array of whole, aligned doubles is read as one (packBatch makes a Float64Array):
  // telling a Float64Array from the other classes is most of what napi_get_typedarray_info
  // costs, and the walk below checks every number it reads.
  View numbers;
  if (!ViewOf(env, info[0], &numbers) || numbers.bytes % sizeof(double) != 0 ||
      reinterpret_cast<uintptr_t>(numbers.data) % alignof(double) != 0) {
    throw malformed("numbers is not a Float64Array");
  }
  batch.numbers = static_cast<const double*>(numbers.data);
  const size_t length = numbers.bytes / sizeof(double);
  batch.length = length;
  napi_value names_value = info[1];
  size_t units = 0;
  if (napi_get_value_string_utf16(env, names_value, nullptr, 0, &units) != napi_ok) {
    throw malformed("names is not a string");
  }
  batch.names.resize(units);
  napi_get_value_string_utf16(env, names_value, batch.names.data(), units + 1, &units);
  batch.arrays = info[2];
  uint32_t arrays = 0;
  if (napi_get_array_length(env, batch.arrays, &arrays) != napi_ok) {
    throw malformed("arrays is not an array");
  }
  // Walk the call headers: each must fit, and together they must cover every number and name.
  const auto count = [](double d, double limit) {
    return d >= 0 && d <= limit && d == static_cast<double>(static_cast<size_t>(d));
  };
  size_t at = 0, name_units = 0, slots = 0;
  uint32_t requests = 0;
  while (at < length) {
    // Each of a call's requests takes at least one of the numbers that follow its header.
    if (length - at < kCallHeader ||
        !count(batch.numbers[at], static_cast<double>(length - at - kCallHeader)) ||
        !count(batch.numbers[at + 2], static_cast<double>(length - at - kCallHeader)) ||
        !count(batch.numbers[at + 3], static_cast<double>(batch.names.size() - name_units)) ||
        !count(batch.numbers[at + 4], static_cast<double>(arrays - slots))) {
      throw malformed("a call header at " + std::to_string(at) + " does not fit");
    }
    PackedCall call;
    call.count = static_cast<uint32_t>(batch.numbers[at]);
    call.grouped = batch.numbers[at + 1] != 0;
    call.begin = at + kCallHeader;
    call.end = call.begin + static_cast<size_t>(batch.numbers[at + 2]);
    call.name_begin = name_units;
    call.name_end = name_units += static_cast<size_t>(batch.numbers[at + 3]);
    call.slot_begin = slots;
    call.slot_end = slots += static_cast<size_t>(batch.numbers[at + 4]);
    call.first_request = requests;
    requests += call.count;
    batch.calls.push_back(call);
    at = call.end;
  }
  if (arrays > 0 && info.Length() == first_array_arg + arrays) {
    batch.array_args.resize(arrays);
    for (size_t i = 0; i < arrays; ++i) batch.array_args[i] = info[first_array_arg + i];
  }
  if (arrays != slots || name_units != batch.names.size()) {
    throw malformed(std::to_string(requests) + " requests, " + std::to_string(arrays) +
                    " arrays for " + std::to_string(slots) + " slots and " +
                    std::to_string(name_units) + " of " + std::to_string(batch.names.size()) +
                    " name units");
  }
}

void ReadPackedCall(Napi::Env env, PackedBatch& batch, const PackedCall& call,
                    const JobPtr& job, bool pin, std::vector<EntryPtr>& entries) {
  size_t at = call.begin;
  const auto malformed = [&]() {
    return Napi::TypeError::New(env, "Expected a batch from packBatch() for enqueuePacked (call " +
                                         std::to_string(call.first_request) + "'s numbers do "
                                         "not match its requests)");
  };
  const auto next = [&]() {
    if (at >= call.end) throw malformed();
    return batch.numbers[at++];
  };
  const auto dims = [&]() {
    const double n = next();
    if (!(n >= 0 && n <= static_cast<double>(call.end - at)) || n != static_cast<size_t>(n)) {
      throw malformed();
    }
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t& d : out) d = static_cast<int64_t>(next());
    return out;
  };
  entries.clear();
  entries.reserve(call.count);
  size_t name_at = call.name_begin;
  size_t slot = call.slot_begin;
  for (uint32_t i = 0; i < call.count; ++i) {
    Request r;
    r.type = static_cast<RequestType>(static_cast<int>(next()));
    r.dtype = static_cast<DataType>(static_cast<int>(next()));
    const int op = static_cast<int>(next());
    r.root = static_cast<int32_t>(next());
    r.prescale = next();
    r.postscale = next();
    r.process_set = static_cast<int32_t>(next());
    const double name_units = next();
    if (!(name_units >= 0 && name_units <= static_cast<double>(call.name_end - name_at)) ||
        name_units != static_cast<size_t>(name_units)) {
      throw malformed();
    }
    AppendUtf8(batch.names.data() + name_at, static_cast<size_t>(name_units), r.name);
    name_at += static_cast<size_t>(name_units);
    r.shape = dims();
    r.splits = dims();
    r.parts = dims();
    // A packed group's parts each take two slots, any other request two in all.
    const size_t parts = CountParts(r.parts);
    const size_t slots = r.parts.empty() ? 2 : 2 * parts;
    if (slots == 0 || slots > call.slot_end - slot) throw malformed();
    const size_t first = slot;
    slot += slots;
    const auto array_at = [&](size_t j) {
      if (!batch.array_args.empty()) return batch.array_args[first + j];
      napi_value v;
      if (napi_get_element(env, batch.arrays, static_cast<uint32_t>(first + j), &v) != napi_ok) {
        throw Napi::Error::New(env);
      }
      return v;
    };
    const ArrayAt arrays(array_at);
    Slots from{arrays};
    if (batch.replay) {
      from.known = batch.views.data() + first;
    } else if (batch.record) {
      from.record = batch.views.data() + first;
    }
    entries.push_back(MakeEntry(env, std::move(r), op, from, job, static_cast<int>(i), pin));
  }
  if (at != call.end || name_at != call.name_end || slot != call.slot_end) throw malformed();
  FinishCall(entries, call.grouped, job);
}

}  // namespace kolo

#include "engine/timeline.h"

#include <cstdio>

namespace kolo {

std::string JsonEscape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

Timeline::~Timeline() { Close(); }

bool Timeline::Open(const std::string& path, bool mark_cycles, std::string* error) {
  Close();
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    *error = "cannot write the timeline file " + path;
    return false;
  }
  mark_cycles_ = mark_cycles;
  first_ = true;
  rows_.clear();
  start_ = std::chrono::steady_clock::now();
  const auto epoch_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  std::fputs("[\n", file_);
  Event("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"kolo\","
        "\"start_time_since_epoch_in_micros\":" + std::to_string(epoch_us) + "}}");
  Flush();
  return true;
}

void Timeline::Close() {
  if (file_ == nullptr) return;
  Flush();
  std::fclose(file_);
  file_ = nullptr;
}

int64_t Timeline::Now() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start_)
      .count();
}

void Timeline::Event(const std::string& body) {
  pending_ += first_ ? "" : ",\n";
  pending_ += body;
  first_ = false;
}

int Timeline::RowOf(const std::string& tensor) {
  auto it = rows_.find(tensor);
  if (it != rows_.end()) return it->second;
  const int row = static_cast<int>(rows_.size()) + 1;
  rows_.emplace(tensor, row);
  const std::string pid = std::to_string(row);
  Event("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"args\":{\"name\":\"" +
        JsonEscape(tensor) + "\"}}");
  Event("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + pid +
        ",\"args\":{\"sort_index\":" + pid + "}}");
  return row;
}

namespace {
std::string Phase(const char* ph, const std::string& name, int64_t ts, int pid) {
  return std::string("{\"ph\":\"") + ph + "\",\"name\":\"" + name + "\",\"ts\":" +
         std::to_string(ts) + ",\"pid\":" + std::to_string(pid) + "}";
}
}  // namespace

void Timeline::NegotiateStart(const std::string& tensor, RequestType type) {
  if (!active()) return;
  int row = RowOf(tensor);
  Event(Phase("B", std::string("NEGOTIATE_") + RequestTypeName(type), Now(), row));
}

void Timeline::NegotiateRankReady(const std::string& tensor, int rank) {
  if (!active()) return;
  int row = RowOf(tensor);
  Event("{\"ph\":\"X\",\"name\":\"" + std::to_string(rank) + "\",\"ts\":" +
        std::to_string(Now()) + ",\"dur\":0,\"pid\":" + std::to_string(row) + "}");
}

void Timeline::NegotiateEnd(const std::string& tensor) {
  if (!active()) return;
  Event(Phase("E", "", Now(), RowOf(tensor)));
}

void Timeline::Start(const std::string& tensor, RequestType type) {
  if (!active()) return;
  Event(Phase("B", RequestTypeName(type), Now(), RowOf(tensor)));
}

void Timeline::ActivityStart(const std::string& tensor, const char* activity) {
  if (!active()) return;
  Event(Phase("B", activity, Now(), RowOf(tensor)));
}

void Timeline::ActivityEnd(const std::string& tensor) {
  if (!active()) return;
  Event(Phase("E", "", Now(), RowOf(tensor)));
}

void Timeline::End(const std::string& tensor, DataType dtype,
                   const std::vector<int64_t>& shape) {
  if (!active()) return;
  Event("{\"ph\":\"E\",\"ts\":" + std::to_string(Now()) + ",\"pid\":" +
        std::to_string(RowOf(tensor)) + ",\"args\":{\"dtype\":\"" + DataTypeName(dtype) +
        "\",\"shape\":\"" + ShapeString(shape) + "\"}}");
}

void Timeline::MarkCycle() {
  if (!active() || !mark_cycles_) return;
  Event("{\"ph\":\"i\",\"name\":\"CYCLE_START\",\"ts\":" + std::to_string(Now()) +
        ",\"s\":\"g\",\"pid\":0}");
}

void Timeline::Flush() {
  if (file_ == nullptr || pending_.empty()) return;
  // The previous flush ended with "\n]"; overwrite that closing bracket.
  if (std::ftell(file_) > 2) std::fseek(file_, -2, SEEK_CUR);
  std::fputs(pending_.c_str(), file_);
  std::fputs("\n]", file_);
  std::fflush(file_);
  pending_.clear();
}

}  // namespace kolo

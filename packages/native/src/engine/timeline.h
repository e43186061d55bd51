// Horovod-compatible Chrome-trace timeline, written by the coordinator only: one row ("process")
// per tensor with its negotiation (a tick per rank), the op, and the op's phases. The file is a
// valid JSON array after every flush, so a crashed job still leaves a readable trace.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/common.h"

namespace kolo {

class Timeline {
 public:
  ~Timeline();
  // Opens (truncates) `path`. Returns false, with `error` set, when the file cannot be written.
  bool Open(const std::string& path, bool mark_cycles, std::string* error);
  void Close();
  bool active() const { return file_ != nullptr; }

  void NegotiateStart(const std::string& tensor, RequestType type);
  void NegotiateRankReady(const std::string& tensor, int rank);
  void NegotiateEnd(const std::string& tensor);
  void Start(const std::string& tensor, RequestType type);
  void ActivityStart(const std::string& tensor, const char* activity);
  void ActivityEnd(const std::string& tensor);
  void End(const std::string& tensor, DataType dtype, const std::vector<int64_t>& shape);
  void MarkCycle();
  // Writes what this cycle recorded and leaves the file a complete JSON array.
  void Flush();

 private:
  int RowOf(const std::string& tensor);
  void Event(const std::string& body);
  int64_t Now() const;

  std::FILE* file_ = nullptr;
  bool mark_cycles_ = false;
  bool first_ = true;
  std::chrono::steady_clock::time_point start_;
  std::unordered_map<std::string, int> rows_;
  std::string pending_;
};

std::string JsonEscape(const std::string& text);

}  // namespace kolo

// A POSIX shared-memory segment mapped into this process. The creator names it; the name is
// unlinked as soon as every local rank has mapped it, so a killed job leaves nothing in /dev/shm.
#pragma once

#include <cstddef>
#include <string>

namespace kolo {

class ShmSegment {
 public:
  // Creates a new segment of `bytes` (fails if the name exists), reserving its pages and
  // pre-faulting this process's mapping, so neither a full /dev/shm nor page faults surface in
  // the middle of a collective. Throws std::runtime_error.
  static ShmSegment Create(const std::string& name, size_t bytes);
  // Maps an existing segment. Throws std::runtime_error (e.g. the name was never created).
  static ShmSegment Open(const std::string& name);

  ShmSegment() = default;
  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  // Removes the name (idempotent; the mapping stays valid). Safe on every rank.
  void Unlink();
  char* data() const { return static_cast<char*>(addr_); }
  size_t size() const { return bytes_; }
  const std::string& name() const { return name_; }

 private:
  void Release();

  std::string name_;
  void* addr_ = nullptr;
  size_t bytes_ = 0;
  bool linked_ = false;
};

// A fresh segment name: KOLO_SHM_TAG (kolorun's, when set), the store prefix (made safe for a
// file name) and a random nonce.
std::string ShmSegmentName(const std::string& prefix);

}  // namespace kolo

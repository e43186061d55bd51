#include "transport/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>

namespace kolo {
namespace {

std::runtime_error SysError(const std::string& what, const std::string& name) {
  return std::runtime_error(what + " shared-memory segment " + name + ": " +
                            std::strerror(errno));
}

// Closes the descriptor on every path; the mapping outlives it.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

ShmSegment ShmSegment::Create(const std::string& name, size_t bytes) {
  Fd fd(::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600));
  if (fd.get() < 0) throw SysError("could not create", name);
  ShmSegment s;
  s.name_ = name;
  s.linked_ = true;  // from here on, the destructor unlinks on failure
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) throw SysError("could not size", name);
  // Reserving the pages now turns a full /dev/shm into an error here instead of a SIGBUS in
  // the middle of a collective.
  const int rc = ::posix_fallocate(fd.get(), 0, static_cast<off_t>(bytes));
  if (rc != 0) {
    errno = rc;
    throw SysError("could not allocate", name);
  }
  void* addr = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (addr == MAP_FAILED) throw SysError("could not map", name);
  s.addr_ = addr;
  s.bytes_ = bytes;
  return s;
}

ShmSegment ShmSegment::Open(const std::string& name) {
  Fd fd(::shm_open(name.c_str(), O_RDWR, 0600));
  if (fd.get() < 0) throw SysError("could not open", name);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) throw SysError("could not stat", name);
  const size_t bytes = static_cast<size_t>(st.st_size);
  // MAP_POPULATE pre-faults this process's page tables, so the first collective pays no faults.
  void* addr = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (addr == MAP_FAILED) throw SysError("could not map", name);
  ShmSegment s;
  s.name_ = name;
  s.addr_ = addr;
  s.bytes_ = bytes;
  s.linked_ = true;
  return s;
}

ShmSegment::ShmSegment(ShmSegment&& other) noexcept { *this = std::move(other); }

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    Release();
    name_ = std::move(other.name_);
    addr_ = other.addr_;
    bytes_ = other.bytes_;
    linked_ = other.linked_;
    other.addr_ = nullptr;
    other.bytes_ = 0;
    other.linked_ = false;
  }
  return *this;
}

ShmSegment::~ShmSegment() { Release(); }

void ShmSegment::Unlink() {
  if (!linked_) return;
  linked_ = false;
  ::shm_unlink(name_.c_str());  // ENOENT: another rank was first, which is fine
}

void ShmSegment::Release() {
  Unlink();
  if (addr_ != nullptr) ::munmap(addr_, bytes_);
  addr_ = nullptr;
  bytes_ = 0;
}

std::string ShmSegmentName(const std::string& prefix) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  std::string safe;
  for (char c : prefix) safe += alnum(c) ? c : '-';
  if (safe.size() > 80) safe = safe.substr(safe.size() - 80);
  // kolorun's tag comes first, so the launcher can sweep what killed workers left behind.
  const char* tag = std::getenv("KOLO_SHM_TAG");
  if (tag != nullptr && *tag != '\0' && std::strlen(tag) <= 32 &&
      std::all_of(tag, tag + std::strlen(tag), alnum)) {
    safe = std::string(tag) + "-" + safe;
  }
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string nonce;
  for (int i = 0; i < 4; ++i) {
    uint32_t v = rd();
    for (int k = 0; k < 8; ++k) nonce += kHex[(v >> (4 * k)) & 0xf];
  }
  return "/kolo-" + safe + "-" + nonce;
}

}  // namespace kolo

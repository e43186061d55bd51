#include "transport/shm_channel.h"

#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <thread>

#include "transport/transport.h"

namespace kolo {

struct ShmChannel::Header {
  uint32_t magic;
  uint32_t size;
  uint64_t slot_bytes;
  std::atomic<uint32_t> attached;
  std::atomic<uint32_t> abort;  // 0, or 1 + the rank that failed
};

// One cache line per rank, so a rank's arrivals do not bounce its neighbours' lines.
struct alignas(64) ShmChannel::Control {
  std::atomic<uint32_t> arrived;  // number of Sync calls made; the futex word peers sleep on
  std::atomic<uint32_t> waiters;  // peers asleep on `arrived`, so arrivals skip futex_wake
  std::atomic<int32_t> pid;
  std::atomic<uint32_t> departed;  // set when this rank's transport is destroyed
  std::atomic<uint32_t> announced;  // 2 + the epoch its caller is about to leave by Sync, or 0
  std::atomic<uint32_t> reads_peers;  // ProbeSingleCopy: 2 if this rank read every peer, else 1
  std::atomic<uint64_t> probe_at;  // ProbeSingleCopy: where this rank's pid lies in its memory
};

namespace {

constexpr uint32_t kMagic = 0x4b4f4c4f;  // "KOLO"
constexpr size_t kControlOffset = 256;
constexpr size_t kControlBytes = 64;
constexpr size_t kSlotAlign = 4096;
constexpr int kSpins = 500;
constexpr int kYields = 20;
// After the counted yields, how long a waiter keeps yielding before it sleeps: about what a check
// of one peer's process took there (14 us on the test VM) before that check moved after the first
// sleep, so a waiter polls as long as it did, and notices an arrival at once instead of after it.
constexpr auto kPollBeforeSleep = std::chrono::microseconds(15);
// Longest a waiter sleeps before it rechecks peers' liveness and its deadline.
constexpr long kSliceNs = 5 * 1000 * 1000;

static_assert(std::atomic<uint32_t>::is_always_lock_free, "futex words must be plain integers");

uint32_t* FutexWord(std::atomic<uint32_t>& a) { return reinterpret_cast<uint32_t*>(&a); }

void FutexWait(std::atomic<uint32_t>& word, uint32_t expected) {
  struct timespec slice = {0, kSliceNs};
  ::syscall(SYS_futex, FutexWord(word), FUTEX_WAIT, expected, &slice, nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>& word) {
  ::syscall(SYS_futex, FutexWord(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A pid that no longer runs: gone, or a zombie its parent has not reaped yet.
bool ProcessGone(int32_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char state = 0;
  // Format: pid (comm) state ...; comm may hold spaces, so find the last ')'.
  char line[512];
  size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  line[n] = '\0';
  for (size_t i = n; i > 0; --i) {
    if (line[i - 1] == ')') {
      if (i + 1 < n) state = line[i + 1];
      break;
    }
  }
  return state == 'Z' || state == 'X';
}

size_t SlotsOffset(int size) {
  size_t end = kControlOffset + static_cast<size_t>(size) * kControlBytes;
  return (end + kSlotAlign - 1) / kSlotAlign * kSlotAlign;
}

}  // namespace

ShmChannel::Header& ShmChannel::header() const {
  return *reinterpret_cast<Header*>(segment_.data());
}

ShmChannel::Control& ShmChannel::control(int rank) const {
  return reinterpret_cast<Control*>(segment_.data() + kControlOffset)[rank];
}

char* ShmChannel::Input(int rank) const {
  return slots_ + (static_cast<size_t>(rank) * 4 + static_cast<size_t>(half_) * 2) * slot_bytes_;
}

char* ShmChannel::Result(int rank) const { return Input(rank) + slot_bytes_; }

int ShmSpinsFor(int ranks, int cpus) { return ranks > cpus ? 0 : kSpins; }

namespace {
// The CPUs this process may run on (its affinity mask, which a launcher or container may
// narrow), else the machine's count.
int UsableCpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}
}  // namespace

ShmChannel::ShmChannel(KeyValueStore& store, const ShmOptions& options)
    : rank_(options.rank),
      size_(options.size),
      spins_(options.spins >= 0 ? options.spins : ShmSpinsFor(options.size, UsableCpus())),
      slot_bytes_(options.slot_bytes),
      timeout_(options.timeout) {
  static_assert(sizeof(Control) == kControlBytes, "one cache line per rank");
  static_assert(sizeof(Header) <= kControlOffset, "the header fits before the controls");
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  // Each rank owns two halves, each an input area and a result area.
  const size_t bytes = SlotsOffset(size_) + static_cast<size_t>(size_) * 4 * slot_bytes_;
  try {
    if (rank_ == 0) {
      segment_ = ShmSegment::Create(ShmSegmentName(options.name_prefix), bytes);
      Header& h = header();
      h.magic = kMagic;
      h.size = static_cast<uint32_t>(size_);
      h.slot_bytes = slot_bytes_;
      const std::string& name = segment_.name();
      store.Set(options.store_key, std::vector<char>(name.begin(), name.end()));
    } else {
      auto name = store.Get(options.store_key, timeout_);
      if (!name) {
        throw TransportError("rank 0 did not publish its shared-memory segment within " +
                                 std::to_string(timeout_.count()) + " ms",
                             0, true);
      }
      segment_ = ShmSegment::Open(std::string(name->begin(), name->end()));
      if (segment_.size() < bytes || header().magic != kMagic ||
          header().size != static_cast<uint32_t>(size_) || header().slot_bytes != slot_bytes_) {
        throw TransportError("the shared-memory segment " + segment_.name() +
                             " does not match this group's layout");
      }
    }
  } catch (const TransportError&) {
    throw;
  } catch (const std::exception& e) {
    throw TransportError(std::string("shared-memory setup: ") + e.what());
  }
  slots_ = segment_.data() + SlotsOffset(size_);
  control(rank_).pid.store(static_cast<int32_t>(::getpid()));
  if (header().attached.fetch_add(1) + 1 == static_cast<uint32_t>(size_)) segment_.Unlink();
  WaitAttached(deadline);
  single_copy_ = (options.single_copy_broadcast_max_bytes > 0 || options.single_copy_allgather_max_bytes > 0 ||
                  options.single_copy_allreduce_max_bytes > 0) &&
                 size_ > 1 && ProbeSingleCopy(options.single_copy_oversubscribed || size_ <= UsableCpus());
}

// Each rank reads a word of every peer's memory that holds the peer's pid. A container's
// seccomp profile, Yama's ptrace_scope or a peer run by another user refuses the read. `wanted`:
// this rank would use one copy (it has a CPU per rank); the group uses it only if every rank would.
bool ShmChannel::ProbeSingleCopy(bool wanted) {
  const uint64_t word = static_cast<uint64_t>(::getpid());
  control(rank_).probe_at.store(reinterpret_cast<uintptr_t>(&word));
  Sync("shared-memory setup");
  bool ok = wanted;
  for (int r = 0; r < size_ && ok; ++r) {
    if (r == rank_) continue;
    uint64_t theirs = 0;
    struct iovec local = {&theirs, sizeof theirs};
    struct iovec remote = {reinterpret_cast<void*>(control(r).probe_at.load()), sizeof theirs};
    ok = ::process_vm_readv(control(r).pid.load(), &local, 1, &remote, 1, 0) ==
             static_cast<ssize_t>(sizeof theirs) &&
         theirs == static_cast<uint64_t>(control(r).pid.load());
  }
  control(rank_).reads_peers.store(ok ? 2 : 1);
  // Past this barrier every rank has read (`word` may go) and published its answer.
  Sync("shared-memory setup");
  bool all = true;
  for (int r = 0; r < size_; ++r) all = all && control(r).reads_peers.load() == 2;
  return all;
}

void ShmChannel::ReadPeer(int peer, void* local, const void* remote, size_t bytes,
                          const char* what) const {
  auto* to = static_cast<char*>(local);
  auto* from = static_cast<const char*>(remote);
  while (bytes > 0) {
    struct iovec l = {to, bytes};
    struct iovec r = {const_cast<char*>(from), bytes};
    const ssize_t n = ::process_vm_readv(control(peer).pid.load(), &l, 1, &r, 1, 0);
    if (n <= 0) {
      const int error = n == 0 ? EIO : errno;
      throw TransportError(std::string(what) + ": could not read rank " + std::to_string(peer) +
                               "'s memory (" + std::strerror(error) + ")",
                           peer);
    }
    to += n;
    from += n;
    bytes -= static_cast<size_t>(n);
  }
}

namespace {
// Drops the first `n` bytes of the ranges from `i` on, advancing `i` past those used up.
void Consume(std::vector<struct iovec>& v, size_t& i, size_t n) {
  while (n > 0 && i < v.size()) {
    const size_t take = std::min(n, v[i].iov_len);
    v[i].iov_base = static_cast<char*>(v[i].iov_base) + take;
    v[i].iov_len -= take;
    n -= take;
    if (v[i].iov_len == 0) ++i;
  }
}
}  // namespace

void ShmChannel::ReadPeerV(int peer, std::vector<struct iovec>& local,
                           std::vector<struct iovec>& remote, const char* what) const {
  size_t li = 0, ri = 0;
  while (true) {
    while (li < local.size() && local[li].iov_len == 0) ++li;
    while (ri < remote.size() && remote[ri].iov_len == 0) ++ri;
    if (li == local.size() || ri == remote.size()) return;
    // The kernel takes at most IOV_MAX ranges a side per call.
    const size_t ln = std::min<size_t>(local.size() - li, IOV_MAX);
    const size_t rn = std::min<size_t>(remote.size() - ri, IOV_MAX);
    const ssize_t n = ::process_vm_readv(control(peer).pid.load(), &local[li], ln, &remote[ri], rn, 0);
    if (n <= 0) {
      const int error = n == 0 ? EIO : errno;
      throw TransportError(std::string(what) + ": could not read rank " + std::to_string(peer) +
                               "'s memory (" + std::strerror(error) + ")",
                           peer);
    }
    Consume(local, li, static_cast<size_t>(n));
    Consume(remote, ri, static_cast<size_t>(n));
  }
}

ShmChannel::~ShmChannel() {
  if (segment_.data() == nullptr) return;
  // Peers still waiting on this rank fail at once, as they would on a closed socket.
  Control& me = control(rank_);
  me.departed.store(1);
  FutexWakeAll(me.arrived);
}

void ShmChannel::WaitAttached(std::chrono::steady_clock::time_point deadline) {
  while (header().attached.load() < static_cast<uint32_t>(size_)) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::string missing;
      for (int r = 0; r < size_; ++r) {
        if (control(r).pid.load() == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      }
      throw TransportError("rank(s) " + missing + " did not attach to the shared-memory segment "
                           "within " + std::to_string(timeout_.count()) + " ms",
                           -1, true);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  segment_.Unlink();
}

void ShmChannel::Abort(int failed_rank) {
  uint32_t none = 0;
  header().abort.compare_exchange_strong(none, static_cast<uint32_t>(failed_rank) + 1);
  for (int r = 0; r < size_; ++r) FutexWakeAll(control(r).arrived);
}

bool ShmChannel::PeersAhead() const {
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    if (static_cast<int32_t>(control(r).arrived.load(std::memory_order_acquire) - epoch_) <= 0) return false;
  }
  return true;
}

void ShmChannel::AnnounceNext(bool on) {
  control(rank_).announced.store(on ? epoch_ + 2 : 0, std::memory_order_release);
}

bool ShmChannel::PeersReady() const {
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    const Control& c = control(r);
    const bool ahead = static_cast<int32_t>(c.arrived.load(std::memory_order_acquire) - epoch_) > 0;
    if (!ahead && c.announced.load(std::memory_order_acquire) != epoch_ + 2) return false;
  }
  return true;
}

void ShmChannel::Sync(const char* what) {
  Arrive();
  WaitOthers(what);
}

void ShmChannel::Arrive() {
  Control& me = control(rank_);
  me.arrived.store(++epoch_);
  if (me.waiters.load() > 0) FutexWakeAll(me.arrived);
}

void ShmChannel::WaitOthers(const char* what) {
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) WaitFor(r, epoch_, what);
  }
}

bool ShmChannel::OthersArrived() const {
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    if (static_cast<int32_t>(control(r).arrived.load(std::memory_order_acquire) - epoch_) < 0) return false;
  }
  return true;
}

// Throws when `awaited` cannot arrive at `target`: the group was aborted, a peer that has not
// arrived is gone or closed its transport, or the deadline passed. A peer that arrived and then
// left (a clean exit after the last barrier) is not a failure.
void ShmChannel::CheckPeers(int awaited, uint32_t target,
                            std::chrono::steady_clock::time_point deadline, const char* what,
                            bool processes) {
  auto arrived = [&](int r) {
    return static_cast<int32_t>(control(r).arrived.load() - target) >= 0;
  };
  const uint32_t aborted = header().abort.load();
  if (aborted != 0 && !arrived(awaited)) {
    const int failed = static_cast<int>(aborted) - 1;
    throw TransportError(std::string(what) + ": rank " + std::to_string(failed) +
                             " left the shared-memory group after a failure",
                         failed);
  }
  for (int r = 0; r < size_ && processes; ++r) {
    if (r == rank_ || !ProcessGone(control(r).pid.load()) || arrived(r)) continue;
    Abort(r);
    throw TransportError(std::string(what) + ": rank " + std::to_string(r) + " (pid " +
                             std::to_string(control(r).pid.load()) + ") exited",
                         r);
  }
  if (control(awaited).departed.load() != 0 && !arrived(awaited)) {
    throw TransportError(std::string(what) + ": rank " + std::to_string(awaited) +
                             " closed its shared-memory connection",
                         awaited);
  }
  if (std::chrono::steady_clock::now() > deadline && !arrived(awaited)) {
    Abort(awaited);
    throw TransportError(std::string(what) + ": timed out after " +
                             std::to_string(timeout_.count()) + " ms waiting for rank " +
                             std::to_string(awaited),
                         awaited, true);
  }
}

// Spins briefly (a peer on another core is usually microseconds away; not at all with more
// ranks than CPUs, see ShmSpinsFor), then yields (with more ranks than cores the peer needs
// this core) 20 times and for at least 15 us, then sleeps on the peer's futex word.
void ShmChannel::WaitFor(int peer, uint32_t target, const char* what) {
  Control& c = control(peer);
  auto reached = [&](uint32_t v) { return static_cast<int32_t>(v - target) >= 0; };
  for (int i = 0; i < spins_; ++i) {
    if (reached(c.arrived.load(std::memory_order_acquire))) return;
    CpuRelax();
  }
  for (int i = 0; i < kYields; ++i) {
    if (reached(c.arrived.load(std::memory_order_acquire))) return;
    ::sched_yield();
  }
  const auto polled = std::chrono::steady_clock::now() + kPollBeforeSleep;
  do {
    if (reached(c.arrived.load(std::memory_order_acquire))) return;
    ::sched_yield();
  } while (std::chrono::steady_clock::now() < polled);
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  // Before the first sleep only what shared memory says (an abort, a closed connection, the
  // deadline): whether each peer's process still runs costs a kill and a read of /proc per peer,
  // during which an arrival went unnoticed. A peer that died is noticed one slice (5 ms) later.
  bool first_sleep = true;
  while (true) {
    if (reached(c.arrived.load())) return;
    CheckPeers(peer, target, deadline, what, /*processes=*/!first_sleep);
    first_sleep = false;
    c.waiters.fetch_add(1);
    const uint32_t seen = c.arrived.load();
    if (!reached(seen) && header().abort.load() == 0) FutexWait(c.arrived, seen);
    c.waiters.fetch_sub(1);
  }
}

}  // namespace kolo

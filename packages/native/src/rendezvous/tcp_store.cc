#include "rendezvous/tcp_store.h"

#include <gloo/common/error.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "rendezvous/store_auth.h"

namespace kolo {
namespace {

enum Op : uint8_t { kAuth = 1, kSet = 2, kGet = 3, kWait = 6 };
enum Reply : uint8_t { kOk = 0, kTimeout = 1, kBadRequest = 2, kUnauthorized = 3, kChallenge = 4 };
// The largest frame the server may send (STORE_LIMITS.maxPayloadBytes in store-protocol.ts).
constexpr uint32_t kMaxReplyBytes = (64u << 20) + 8192;

void PutU32(std::vector<char>& out, uint32_t v) {
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + 4);
}
void PutBytes(std::vector<char>& out, const char* data, size_t n) {
  PutU32(out, static_cast<uint32_t>(n));
  out.insert(out.end(), data, data + n);
}
void PutStr(std::vector<char>& out, const std::string& s) { PutBytes(out, s.data(), s.size()); }

std::string ReplyText(const std::vector<char>& reply) {
  if (reply.size() < 5) return "";
  uint32_t n;
  std::memcpy(&n, reply.data() + 1, 4);
  if (reply.size() < 5 + n) return "";
  return std::string(reply.data() + 5, n);
}

int ConnectOnce(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return -1;
  int fd = -1;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

}  // namespace

TcpStore::TcpStore(const std::string& host, int port, const std::string& secret,
                   std::chrono::milliseconds timeout)
    : where_(host + ":" + std::to_string(port)), timeout_(timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while ((fd_ = ConnectOnce(host, port)) < 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("could not connect to the rendezvous store at " + where_ +
                               " within " + std::to_string(timeout.count() / 1000) +
                               " s; check KOLO_STORE_ADDR/KOLO_STORE_PORT and that the "
                               "launcher is running");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  try {
    Authenticate(secret, timeout);
  } catch (...) {
    close(fd_);  // the destructor does not run for a constructor that throws
    fd_ = -1;
    throw;
  }
}

// The client's half of the handshake in store-protocol.ts: prove the secret without sending it,
// then check that the store proves it too, so a worker never joins another job's store.
void TcpStore::Authenticate(const std::string& secret, std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<char> challenge = ReadFrame(timeout);
  if (challenge[0] != kChallenge || challenge.size() != 1 + kStoreNonceBytes) {
    throw std::runtime_error("Expected a challenge (status 4) from the store at " + where_ +
                             " but received status " +
                             std::to_string(static_cast<uint8_t>(challenge[0])) +
                             "; check that KOLO_STORE_ADDR/KOLO_STORE_PORT point at a Kolo "
                             "store of the same version");
  }
  const auto* server_nonce = reinterpret_cast<const unsigned char*>(challenge.data() + 1);
  const StoreNonce client_nonce = RandomStoreNonce();
  const StoreProof client_proof = StoreAuthProof(secret, kStoreClientLabel, server_nonce);
  std::vector<char> req(1 + kStoreNonceBytes + kStoreProofBytes);
  req[0] = static_cast<char>(kAuth);
  std::memcpy(req.data() + 1, client_nonce.data(), kStoreNonceBytes);
  std::memcpy(req.data() + 1 + kStoreNonceBytes, client_proof.data(), kStoreProofBytes);
  WriteFrame(req);
  std::vector<char> reply = ReadFrame(timeout);
  if (reply[0] == kUnauthorized) {
    throw std::runtime_error(SecretMismatchMessage(
        where_, "it refused this process's proof of the secret (" + ReplyText(reply) + ")"));
  }
  if (reply[0] != kOk || reply.size() != 1 + kStoreProofBytes) {
    throw std::runtime_error("Expected status OK for AUTH from the store at " + where_ +
                             " but received status " +
                             std::to_string(static_cast<uint8_t>(reply[0])));
  }
  const StoreProof expected = StoreAuthProof(secret, kStoreServerLabel, client_nonce.data());
  if (!StoreProofsEqual(reinterpret_cast<const unsigned char*>(reply.data() + 1),
                        expected.data())) {
    throw std::runtime_error(
        SecretMismatchMessage(where_, "its proof of the secret does not match"));
  }
}

TcpStore::~TcpStore() {
  if (fd_ >= 0) close(fd_);
}

void TcpStore::WriteAll(const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd_, data, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw gloo::IoException("lost the rendezvous store at " + where_);
    data += w;
    n -= static_cast<size_t>(w);
  }
}

void TcpStore::ReadAll(char* data, size_t n, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (n > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) throw gloo::IoException("no reply from the rendezvous store at " + where_);
    ssize_t r = recv(fd_, data, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw gloo::IoException("lost the rendezvous store at " + where_);
    data += r;
    n -= static_cast<size_t>(r);
  }
}

void TcpStore::WriteFrame(const std::vector<char>& payload) {
  std::vector<char> frame;
  PutBytes(frame, payload.data(), payload.size());
  WriteAll(frame.data(), frame.size());
}

std::vector<char> TcpStore::ReadFrame(std::chrono::milliseconds timeout) {
  uint32_t len = 0;
  ReadAll(reinterpret_cast<char*>(&len), 4, timeout);
  if (len == 0 || len > kMaxReplyBytes) {
    throw gloo::IoException("malformed reply from the rendezvous store at " + where_);
  }
  std::vector<char> reply(len);
  ReadAll(reply.data(), len, timeout);
  return reply;
}

std::vector<char> TcpStore::Call(const std::vector<char>& request,
                                 std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  WriteFrame(request);
  // The server answers a blocking request when it is satisfied or timed out; allow slack.
  return ReadFrame(timeout + std::chrono::seconds(5));
}

bool TcpStore::Alive() {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return true;  // a request is in flight, so the socket is in use
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return true;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return false;
  char byte;
  return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
}

void TcpStore::set(const std::string& key, const std::vector<char>& data) { Set(key, data); }

void TcpStore::Set(const std::string& key, const std::vector<char>& value) {
  std::vector<char> req{static_cast<char>(kSet)};
  PutStr(req, key);
  PutBytes(req, value.data(), value.size());
  std::vector<char> reply = Call(req, timeout_);
  if (reply[0] != kOk) throw gloo::IoException("store SET failed: " + ReplyText(reply));
}

std::optional<std::vector<char>> TcpStore::Get(const std::string& key,
                                               std::chrono::milliseconds timeout) {
  std::vector<char> req{static_cast<char>(kGet)};
  PutStr(req, key);
  PutU32(req, static_cast<uint32_t>(timeout.count()));
  std::vector<char> reply = Call(req, timeout);
  if (reply[0] == kTimeout) return std::nullopt;
  if (reply[0] != kOk || reply.size() < 5) {
    throw gloo::IoException("store GET failed: " + ReplyText(reply));
  }
  uint32_t n;
  std::memcpy(&n, reply.data() + 1, 4);
  return std::vector<char>(reply.begin() + 5, reply.begin() + 5 + n);
}

std::vector<char> TcpStore::get(const std::string& key) {
  auto value = Get(key, timeout_);
  if (!value) {
    throw gloo::IoException("Wait timeout for key(s): " + key + " (after " +
                            std::to_string(timeout_.count() / 1000) +
                            " s; raise KOLO_TIMEOUT_SECONDS if ranks start slowly)");
  }
  return *value;
}

void TcpStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void TcpStore::wait(const std::vector<std::string>& keys,
                    const std::chrono::milliseconds& timeout) {
  std::vector<char> req{static_cast<char>(kWait)};
  PutU32(req, static_cast<uint32_t>(keys.size()));
  for (const std::string& k : keys) PutStr(req, k);
  PutU32(req, static_cast<uint32_t>(timeout.count()));
  std::vector<char> reply = Call(req, timeout);
  if (reply[0] == kTimeout) {
    std::string list;
    for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
    throw gloo::IoException("Wait timeout for key(s): " + list);
  }
  if (reply[0] != kOk) throw gloo::IoException("store WAIT failed: " + ReplyText(reply));
}

}  // namespace kolo

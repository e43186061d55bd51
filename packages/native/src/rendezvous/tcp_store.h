// Client of the launcher's TCP key-value store (protocol in packages/core/src/rendezvous/
// store-protocol.ts): length-prefixed frames, a mutual HMAC-SHA256 challenge on the job secret
// first (the secret never crosses the wire), blocking GET/WAIT with a timeout.
#pragma once

#include <mutex>

#include "rendezvous/store.h"

namespace kolo {

class TcpStore : public RendezvousStore {
 public:
  TcpStore(const std::string& host, int port, const std::string& secret,
           std::chrono::milliseconds timeout);
  ~TcpStore() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  void Set(const std::string& key, const std::vector<char>& value) override;
  std::optional<std::vector<char>> Get(const std::string& key,
                                       std::chrono::milliseconds timeout) override;
  bool Alive() override;

 private:
  void Authenticate(const std::string& secret, std::chrono::milliseconds timeout);
  std::vector<char> Call(const std::vector<char>& request, std::chrono::milliseconds timeout);
  void WriteFrame(const std::vector<char>& payload);
  std::vector<char> ReadFrame(std::chrono::milliseconds timeout);
  void WriteAll(const char* data, size_t n);
  void ReadAll(char* data, size_t n, std::chrono::milliseconds timeout);

  std::mutex mu_;
  int fd_ = -1;
  std::string where_;
  std::chrono::milliseconds timeout_;
};

}  // namespace kolo

#include "rendezvous/store.h"

#include <gloo/rendezvous/file_store.h>

#include "rendezvous/tcp_store.h"

namespace kolo {
namespace {

// Gloo's FileStore (a fresh directory per job), adapted to the engine's KeyValueStore.
class FileStore : public RendezvousStore {
 public:
  FileStore(const std::string& path, std::chrono::milliseconds timeout)
      : inner_(path), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    inner_.set(key, data);
  }
  std::vector<char> get(const std::string& key) override {
    inner_.wait({key}, timeout_);
    return inner_.get(key);
  }
  void wait(const std::vector<std::string>& keys) override { inner_.wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    inner_.wait(keys, timeout);
  }
  void Set(const std::string& key, const std::vector<char>& value) override {
    try {
      inner_.set(key, value);
    } catch (const std::exception&) {
      // Keys are set-once in a file store; the first record is the one that counts.
    }
  }
  std::optional<std::vector<char>> Get(const std::string& key,
                                       std::chrono::milliseconds timeout) override {
    try {
      inner_.wait({key}, timeout);
      return inner_.get(key);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

 private:
  gloo::rendezvous::FileStore inner_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<RendezvousStore> OpenStore(const StoreConfig& config,
                                           std::chrono::milliseconds timeout) {
  if (config.kind == StoreConfig::Kind::kFile) {
    return std::make_unique<FileStore>(config.path, timeout);
  }
  return std::make_unique<TcpStore>(config.host, config.port, config.secret, timeout);
}

}  // namespace kolo

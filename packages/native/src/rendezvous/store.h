// Rendezvous stores: Gloo's Store interface (blocking get) plus the engine's KeyValueStore.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <memory>
#include <string>

#include "engine/kv_store.h"

namespace kolo {

class RendezvousStore : public gloo::rendezvous::Store, public KeyValueStore {};

struct StoreConfig {
  enum class Kind { kTcp, kFile } kind = Kind::kTcp;
  std::string host;
  int port = 0;
  std::string secret;
  std::string path;  // file store directory
};

// Connects (TCP: retrying until `timeout`, then authenticating). Throws std::runtime_error.
std::unique_ptr<RendezvousStore> OpenStore(const StoreConfig& config,
                                           std::chrono::milliseconds timeout);

}  // namespace kolo

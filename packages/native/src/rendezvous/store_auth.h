// The client's half of the store's AUTH handshake (packages/core/src/rendezvous/store-protocol.ts):
// HMAC-SHA256 proofs over fresh nonces, so the job secret never crosses the wire.
#pragma once

#include <array>
#include <string>

namespace kolo {

constexpr size_t kStoreNonceBytes = 32;
constexpr size_t kStoreProofBytes = 32;
constexpr char kStoreClientLabel[] = "kolo-store-client";
constexpr char kStoreServerLabel[] = "kolo-store-server";

using StoreNonce = std::array<unsigned char, kStoreNonceBytes>;
using StoreProof = std::array<unsigned char, kStoreProofBytes>;

// A fresh nonce from OpenSSL's CSPRNG. Throws std::runtime_error when it has no entropy.
StoreNonce RandomStoreNonce();

// HMAC-SHA256(key = secret, label || nonce).
StoreProof StoreAuthProof(const std::string& secret, const char* label,
                          const unsigned char* nonce);

// Constant-time comparison of two proofs.
bool StoreProofsEqual(const unsigned char* a, const unsigned char* b);

// What a worker reports when the store at `where` does not hold its job secret; the same text as
// secretMismatchMessage in packages/core/src/rendezvous/store-auth.ts.
std::string SecretMismatchMessage(const std::string& where, const std::string& why);

}  // namespace kolo

#include "rendezvous/store_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace kolo {

StoreNonce RandomStoreNonce() {
  StoreNonce nonce;
  if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1) {
    throw std::runtime_error(
        "OpenSSL could not produce a random nonce for the store handshake (RAND_bytes failed); "
        "check that the system's random source (/dev/urandom, getrandom) is available");
  }
  return nonce;
}

StoreProof StoreAuthProof(const std::string& secret, const char* label,
                          const unsigned char* nonce) {
  std::string message(label);
  message.append(reinterpret_cast<const char*>(nonce), kStoreNonceBytes);
  StoreProof proof;
  unsigned int proof_len = 0;
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), proof.data(),
           &proof_len) == nullptr ||
      proof_len != proof.size()) {
    throw std::runtime_error("OpenSSL could not compute HMAC-SHA256 for the store handshake");
  }
  return proof;
}

bool StoreProofsEqual(const unsigned char* a, const unsigned char* b) {
  return CRYPTO_memcmp(a, b, kStoreProofBytes) == 0;
}

std::string SecretMismatchMessage(const std::string& where, const std::string& why) {
  return "The store at " + where + " does not hold this job's KOLO_JOB_SECRET: " + why +
         ". Is another job's launcher on that port? Point KOLO_STORE_ADDR/KOLO_STORE_PORT at "
         "this job's kolorun and export the same KOLO_JOB_SECRET for every worker and node";
}

}  // namespace kolo

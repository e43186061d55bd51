/**
 * Wire format of the Kolo rendezvous store, shared with the C++ client in packages/native.
 *
 * Little-endian. Every frame in both directions is `u32 payloadLength` + payload; `str` and
 * `bytes` inside a payload are `u32 length` + bytes (`str` is UTF-8); `nonce` and `proof` are
 * exactly 32 raw bytes. A request payload is `u8 op` + arguments; a response payload is
 * `u8 status` + result.
 *
 * Handshake (mutual HMAC-SHA256 challenge; the secret never crosses the wire). With
 * `proof(label, nonce) = HMAC-SHA256(key = UTF-8 job secret, label || nonce)`:
 * 1. On accept the server sends CHALLENGE: `u8 0x04, nonce serverNonce` (fresh random bytes).
 * 2. The client sends AUTH: `u8 0x01, nonce clientNonce, proof("kolo-store-client", serverNonce)`.
 * 3. The server compares the proof in constant time. On a match it answers
 *    `u8 OK, proof("kolo-store-server", clientNonce)`, which the client checks in turn, so a
 *    client refuses a store that does not hold its secret; otherwise UNAUTHORIZED, then close.
 *
 * | op | request arguments | OK result |
 * |---|---|---|
 * | 0x01 AUTH | `nonce clientNonce, proof clientProof` | `proof serverProof` |
 * | 0x02 SET | `str key, bytes value` | nothing |
 * | 0x03 GET | `str key, u32 timeoutMs` | `bytes value` (or TIMEOUT) |
 * | 0x04 ADD | `str key, i64 delta` | `i64 newValue` |
 * | 0x05 CHECK | `u32 n, n × str key` | `u8 allPresent` |
 * | 0x06 WAIT | `u32 n, n × str key, u32 timeoutMs` | nothing (or TIMEOUT) |
 * | 0x07 DELETE | `str key` | `u8 existed` |
 *
 * TIMEOUT carries no result. BAD_REQUEST and UNAUTHORIZED carry `str message` and the server
 * closes the connection after sending them. `timeoutMs` 0 means "do not wait"; values above
 * 2^31-1 mean "wait forever". AUTH must be the first frame, within the auth timeout; before it
 * succeeds a frame may carry at most 4 KiB.
 */
/** Request opcodes (first byte of a request payload). */
export const StoreOp = {
  /** Answers the server's challenge with an HMAC proof of the job secret; the first frame. */
  Auth: 0x01,
  /** Stores a value under a key. */
  Set: 0x02,
  /** Waits up to `timeoutMs` for a key and returns its value. */
  Get: 0x03,
  /** Adds to an integer counter and returns the new value. */
  Add: 0x04,
  /** Says whether all the given keys exist, without waiting. */
  Check: 0x05,
  /** Waits up to `timeoutMs` until all the given keys exist. */
  Wait: 0x06,
  /** Removes a key and says whether it existed. */
  Delete: 0x07,
} as const;
/** One of the {@link StoreOp} values. */
export type StoreOp = (typeof StoreOp)[keyof typeof StoreOp];

/** Response statuses (first byte of a server payload); CHALLENGE is the server's first frame. */
export const StoreStatus = {
  /** The request succeeded; the result follows. */
  Ok: 0,
  /** GET or WAIT ran out of time; no result. */
  Timeout: 1,
  /** The frame broke the protocol or a limit; a message follows and the server closes. */
  BadRequest: 2,
  /** AUTH failed; a message follows and the server closes. */
  Unauthorized: 3,
  /** The server's first frame: a nonce for the client to prove the secret against. */
  Challenge: 4,
} as const;
/** One of the {@link StoreStatus} values. */
export type StoreStatus = (typeof StoreStatus)[keyof typeof StoreStatus];

/**
 * Bounds every peer must respect; a frame that breaks one is answered with BAD_REQUEST and the
 * connection is closed.
 */
export const STORE_LIMITS = {
  /** Longest key, in UTF-8 bytes. */
  maxKeyBytes: 4096,
  /** Largest value. */
  maxValueBytes: 64 * 1024 * 1024,
  /** Largest payload (the u32 length of a frame), after AUTH. */
  maxPayloadBytes: 64 * 1024 * 1024 + 8 * 1024,
  /** Largest payload before AUTH succeeded. */
  maxPreAuthPayloadBytes: 4096,
  /** How long the server waits for the AUTH frame before dropping the client. */
  authTimeoutMs: 10_000,
  /** Longest timer Node can arm; larger `timeoutMs` values wait forever. */
  maxTimerMs: 2 ** 31 - 1,
} as const;

/** Constants of the AUTH handshake; the C++ client (tcp_store.cc) uses the same values. */
export const STORE_AUTH = {
  /** Bytes in each side's random nonce. */
  nonceBytes: 32,
  /** Bytes in an HMAC-SHA256 proof. */
  proofBytes: 32,
  /** HMAC label of the client's proof (of the server's nonce). */
  clientLabel: 'kolo-store-client',
  /** HMAC label of the server's proof (of the client's nonce). */
  serverLabel: 'kolo-store-server',
} as const;

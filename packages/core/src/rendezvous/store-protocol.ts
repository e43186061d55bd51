/**
 * Wire format of the Kolo rendezvous store, shared with the C++ client in packages/native.
 *
 * Little-endian. Every frame in both directions is `u32 payloadLength` + payload; `str` and
 * `bytes` inside a payload are `u32 length` + bytes (`str` is UTF-8). A request payload is
 * `u8 op` + arguments; a response payload is `u8 status` + result.
 *
 * | op | request arguments | OK result |
 * |---|---|---|
 * | 0x01 AUTH | `str secret` | nothing (UNAUTHORIZED + `str message`, then close) |
 * | 0x02 SET | `str key, bytes value` | nothing |
 * | 0x03 GET | `str key, u32 timeoutMs` | `bytes value` (or TIMEOUT) |
 * | 0x04 ADD | `str key, i64 delta` | `i64 newValue` |
 * | 0x05 CHECK | `u32 n, n × str key` | `u8 allPresent` |
 * | 0x06 WAIT | `u32 n, n × str key, u32 timeoutMs` | nothing (or TIMEOUT) |
 * | 0x07 DELETE | `str key` | `u8 existed` |
 *
 * TIMEOUT carries no result. BAD_REQUEST and UNAUTHORIZED carry `str message` and the server
 * closes the connection after sending them. `timeoutMs` 0 means "do not wait"; values above
 * 2^31-1 mean "wait forever". AUTH must be the first frame.
 */
/** Request opcodes (first byte of a request payload). */
export const StoreOp = {
  Auth: 0x01,
  Set: 0x02,
  Get: 0x03,
  Add: 0x04,
  Check: 0x05,
  Wait: 0x06,
  Delete: 0x07,
} as const;
/** One of the {@link StoreOp} values. */
export type StoreOp = (typeof StoreOp)[keyof typeof StoreOp];

/** Response statuses (first byte of a response payload). */
export const StoreStatus = { Ok: 0, Timeout: 1, BadRequest: 2, Unauthorized: 3 } as const;
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

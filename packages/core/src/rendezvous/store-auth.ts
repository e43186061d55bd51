import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { STORE_AUTH } from './store-protocol.js';

/**
 * The HMAC key of a job secret. Both ends derive proofs from it; the secret itself never
 * crosses the wire.
 *
 * @example
 * ```ts
 * const key = authKey(process.env.KOLO_JOB_SECRET!);
 * ```
 */
export function authKey(secret: string): Buffer {
  return Buffer.from(secret, 'utf8');
}

/** A fresh random nonce for one handshake. */
export function newNonce(): Buffer {
  return randomBytes(STORE_AUTH.nonceBytes);
}

/**
 * `HMAC-SHA256(key, label || nonce)`: proof that the sender holds the job secret, bound to the
 * peer's fresh nonce so it cannot be replayed on another connection.
 *
 * @example
 * ```ts
 * const proof = authProof(key, STORE_AUTH.clientLabel, serverNonce);
 * ```
 */
export function authProof(key: Buffer, label: string, nonce: Buffer): Buffer {
  return createHmac('sha256', key).update(label, 'ascii').update(nonce).digest();
}

/** True when `received` equals the proof this end expects; constant time in the proof bytes. */
export function proofMatches(received: Buffer, expected: Buffer): boolean {
  return received.byteLength === expected.byteLength && timingSafeEqual(received, expected);
}

/**
 * What a client reports when the store at `where` does not hold its job secret (`why` says how
 * that showed). The C++ client (tcp_store.cc) builds the same text.
 *
 * @example
 * ```ts
 * secretMismatchMessage('10.0.0.1:29500', 'its proof of the secret does not match');
 * ```
 */
export function secretMismatchMessage(where: string, why: string): string {
  return (
    `The store at ${where} does not hold this job's KOLO_JOB_SECRET: ${why}. ` +
    "Is another job's launcher on that port? Point KOLO_STORE_ADDR/KOLO_STORE_PORT at this " +
    "job's kolorun and export the same KOLO_JOB_SECRET for every worker and node"
  );
}

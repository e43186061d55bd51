import { authKey, authProof, newNonce, proofMatches, secretMismatchMessage } from './store-auth.js';
import type { StoreChannel } from './store-channel.js';
import { FrameWriter } from './store-codec.js';
import { StoreProtocolError, StoreTimeoutError, StoreUnauthorizedError } from './store-errors.js';
import { STORE_AUTH, StoreOp, StoreStatus } from './store-protocol.js';

/**
 * The client's half of the AUTH handshake (store-protocol.ts): answers the server's challenge
 * with a proof of `secret`, then checks the server's proof, so this process never joins a store
 * that does not hold its job secret. Rejects with StoreUnauthorizedError (secrets differ) or
 * StoreProtocolError (the peer is not a Kolo store), or StoreTimeoutError after `timeoutMs`
 * (the peer accepted the connection but never answered).
 *
 * @example
 * ```ts
 * await authenticateClient(new StoreChannel(socket, '127.0.0.1:29500'), secret, 30_000);
 * ```
 */
export async function authenticateClient(
  channel: StoreChannel,
  secret: string,
  timeoutMs: number,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new StoreTimeoutError(
          `Expected the store at ${channel.where} to complete the AUTH handshake within ${timeoutMs} ms but it did not; check that KOLO_STORE_ADDR/KOLO_STORE_PORT point at a Kolo store`,
        ),
      );
    }, timeoutMs);
  });
  try {
    await Promise.race([handshake(channel, secret), expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function handshake(channel: StoreChannel, secret: string): Promise<void> {
  const where = channel.where;
  const key = authKey(secret);
  const serverNonce = await channel.exchange(undefined, (status, r) => {
    if (status !== StoreStatus.Challenge) {
      throw new StoreProtocolError(
        `Expected a challenge (status 4) from the store at ${where} but received status ${status}; check that KOLO_STORE_ADDR/KOLO_STORE_PORT point at a Kolo store of the same version`,
      );
    }
    const nonce = r.fixed(STORE_AUTH.nonceBytes, 'the server nonce');
    r.end('the challenge');
    return nonce;
  });
  const clientNonce = newNonce();
  const frame = new FrameWriter()
    .u8(StoreOp.Auth)
    .raw(clientNonce)
    .raw(authProof(key, STORE_AUTH.clientLabel, serverNonce));
  const serverProof = await channel.exchange(frame, (status, r) => {
    if (status === StoreStatus.Unauthorized) {
      const why = `it refused this process's proof of the secret (${channel.message(r)})`;
      throw new StoreUnauthorizedError(secretMismatchMessage(where, why));
    }
    if (status !== StoreStatus.Ok) {
      throw new StoreProtocolError(
        `Expected status OK for AUTH from the store at ${where} but received status ${status}`,
      );
    }
    const proof = r.fixed(STORE_AUTH.proofBytes, 'the server proof');
    r.end('the AUTH response');
    return proof;
  });
  if (!proofMatches(serverProof, authProof(key, STORE_AUTH.serverLabel, clientNonce))) {
    throw new StoreUnauthorizedError(
      secretMismatchMessage(where, 'its proof of the secret does not match'),
    );
  }
}

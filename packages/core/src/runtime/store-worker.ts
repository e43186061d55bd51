/**
 * Worker-thread entry that hosts the rendezvous store for {@link provideStore}: rank 0 of a
 * torchrun-style or `tcp://` job serves the store here, off the JS thread, so that thread may
 * block in a collective (or run a negotiation cycle) while other ranks still reach the store.
 * Messages: it posts `{ listening: true }` or `{ error }` once; on `'close'` it closes the store
 * and its port, and the thread exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StoreServer, type StoreServerOptions } from '../rendezvous/index.js';

const port = parentPort;
if (port !== null) {
  try {
    const server = await StoreServer.listen(workerData as StoreServerOptions);
    port.on('message', (message: unknown) => {
      if (message !== 'close') return;
      void server.close().then(() => port.close());
    });
    port.postMessage({ listening: true });
  } catch (cause) {
    port.postMessage({ error: cause instanceof Error ? cause.message : String(cause) });
    port.close();
  }
}

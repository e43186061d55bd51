/**
 * How many rendezvous store servers listen in this process. They run on the JS event loop, so
 * while one does, the engine must not run negotiation cycles on the JS thread: a cycle that
 * connects a new process set waits on the store, which the blocked loop would never answer.
 */
let listening = 0;

/** Counts a server that started (+1) or stopped (-1) listening. */
export function countStoreServer(delta: 1 | -1): void {
  listening += delta;
}

/**
 * Whether this process serves a rendezvous store on its event loop.
 *
 * @example
 * ```ts
 * await binding.startEngine({ ...config.engine, callerCycles: !storeServedHere() });
 * ```
 */
export function storeServedHere(): boolean {
  return listening > 0;
}

// Rank 0 starts the engine (creating the shared-memory segment) while rank 1 never attaches,
// checks its segment is in /dev/shm, then SIGKILLs itself: nothing of the engine's runs to
// unlink it, so only kolorun's sweep can.
import { readdirSync } from 'node:fs';

import * as kolo from '@kolo/core';

const rank = Number(process.env.KOLO_RANK);
const tag = process.env.KOLO_SHM_TAG;
const mine = () => readdirSync('/dev/shm').filter((n) => n.startsWith(`kolo-${tag}-`));
if (rank === 0) {
  kolo.init().catch(() => {});
  for (let i = 0; i < 100 && mine().length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
  console.log(`RESULT ${JSON.stringify({ rank, key: 'segments', value: { tag, count: mine().length } })}`);
  process.kill(process.pid, 'SIGKILL');
} else {
  await new Promise((r) => setTimeout(r, 60_000));
}

import { fork } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreServer } from '../../src/index.js';

const distIndex = join(__dirname, '..', '..', 'dist', 'index.js');

describe('StoreClient.close()', () => {
  it('keeps the process alive until the close completes, even with nothing else pending', async () => {
    const server = await StoreServer.listen({ secret: 'close-test' });
    const script = join(mkdtempSync(join(tmpdir(), 'kolo-close-')), 'child.mjs');
    writeFileSync(
      script,
      `import { StoreClient } from ${JSON.stringify(distIndex)};
const c = await StoreClient.connect({ host: '127.0.0.1', port: ${server.port}, secret: 'close-test' });
await c.set('k', 'v');
await c.close();
console.log('after close');`,
    );
    const child = fork(script, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    await server.close();
    expect({ code, out }).toEqual({ code: 0, out: 'after close\n' });
  });
});

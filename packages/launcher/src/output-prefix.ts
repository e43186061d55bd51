import type { Writable } from 'node:stream';

const newline = 0x0a;
/** A line longer than this is cut and emitted, so a worker without newlines cannot grow memory. */
const maxLineBytes = 64 * 1024;

/**
 * Splits a byte stream into lines (without the `\n`), across chunk boundaries and without
 * decoding, so multi-byte characters split between chunks stay intact.
 *
 * @example
 * ```ts
 * const s = new LineSplitter();
 * s.push(Buffer.from('a\nb')); // [<a>]
 * s.flush(); // <b>
 * ```
 */
export class LineSplitter {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  /** The lines completed by `chunk`. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let i = chunk.indexOf(newline); i !== -1; i = chunk.indexOf(newline, start)) {
      lines.push(this.take(chunk.subarray(start, i)));
      start = i + 1;
    }
    if (start < chunk.byteLength) {
      this.partial.push(chunk.subarray(start));
      this.partialBytes += chunk.byteLength - start;
      if (this.partialBytes >= maxLineBytes) lines.push(this.take(Buffer.alloc(0)));
    }
    return lines;
  }

  /** The unterminated last line, if any (call at end of stream). */
  flush(): Buffer | undefined {
    return this.partialBytes === 0 ? undefined : this.take(Buffer.alloc(0));
  }

  private take(tail: Buffer): Buffer {
    const line = this.partial.length === 0 ? tail : Buffer.concat([...this.partial, tail]);
    this.partial = [];
    this.partialBytes = 0;
    return line;
  }
}

/**
 * Writes each complete line of a worker's stream to `target` as `<prefix><line>\n`, in one write
 * per chunk, so lines of different workers never interleave (Open MPI `--tag-output` style).
 *
 * @example
 * ```ts
 * const p = new LinePrefixer('[1]<stdout>: ', process.stdout);
 * child.stdout.on('data', (c) => p.push(c)).on('end', () => p.flush());
 * ```
 */
export class LinePrefixer {
  private readonly splitter = new LineSplitter();
  private readonly prefix: Buffer;

  constructor(prefix: string, private readonly target: Writable) {
    this.prefix = Buffer.from(prefix, 'utf8');
  }

  /** Writes the lines that `chunk` completes, each with the prefix. */
  push(chunk: Buffer): void {
    this.write(this.splitter.push(chunk));
  }

  /** Emits the unterminated last line with a newline added. */
  flush(): void {
    const last = this.splitter.flush();
    if (last !== undefined) this.write([last]);
  }

  private write(lines: Buffer[]): void {
    if (lines.length === 0) return;
    const nl = Buffer.from([newline]);
    this.target.write(Buffer.concat(lines.flatMap((line) => [this.prefix, line, nl])));
  }
}

/**
 * Keeps the last `count` lines of a stream, for the failure report.
 *
 * @example
 * ```ts
 * const tail = new LineTail(20);
 * child.stderr.on('data', (c) => tail.push(c));
 * tail.lines(); // up to 20 strings
 * ```
 */
export class LineTail {
  private readonly splitter = new LineSplitter();
  private readonly kept: string[] = [];
  private last: string | undefined;

  constructor(private readonly count: number) {}

  /** Keeps the lines that `chunk` completes, dropping the oldest beyond the count. */
  push(chunk: Buffer): void {
    for (const line of this.splitter.push(chunk)) this.keep(line.toString('utf8'));
  }

  /** The kept lines, oldest first, including an unterminated last line. */
  lines(): string[] {
    const pending = this.splitter.flush();
    if (pending !== undefined) this.last = (this.last ?? '') + pending.toString('utf8');
    const all = this.last === undefined ? [...this.kept] : [...this.kept, this.last];
    return all.slice(-this.count);
  }

  /** Adds a line written by the launcher itself (e.g. a spawn error). */
  note(line: string): void {
    this.keep(line);
  }

  private keep(line: string): void {
    if (this.last !== undefined) {
      line = this.last + line;
      this.last = undefined;
    }
    this.kept.push(line);
    if (this.kept.length > this.count) this.kept.shift();
  }
}

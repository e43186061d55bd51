import { LineSplitter } from './output-prefix.js';

/** One complete line of a rank's output (without its `\n`), or of mpirun's own (`rank` undefined). */
export interface RankLine {
  readonly rank: number | undefined;
  readonly line: Buffer;
}

/**
 * The tag `mpirun --tag-output` puts before every fragment it forwards: `[1,0]<stdout>:` in Open
 * MPI 4 (checked here against 4.1.4). Open MPI 5's runtime (PRRTE) names the job differently and
 * may put a space after the colon, so from 5 on one space there is taken as part of the tag. The
 * job's name holds no `[`: a fragment that ends in one (`"value":[` of a JSON line) is followed
 * by the next tag, and a name that could start there would swallow that `[` into the tag.
 */
export function mpirunTagPattern(openMpiMajor: number): RegExp {
  return new RegExp(`\\[[^\\[\\],\\s]+,(\\d+)\\]<(?:stdout|stderr|stddiag)>:${openMpiMajor >= 5 ? ' ?' : ''}`);
}

/**
 * Rebuilds each rank's lines from one of mpirun's `--tag-output` streams. mpirun forwards whatever
 * a rank's pipe gave it as soon as it reads it, so a line written in several pieces arrives as
 * several fragments with other ranks' fragments between them: `[1,0]<stdout>:RESULT {"ra` then
 * `[1,1]<stdout>:…\n` then `[1,0]<stdout>:nk":0…\n`. Every fragment is tagged (mpirun also tags
 * after each newline inside one), so joining a rank's fragments in order restores its lines, and a
 * line of mpirun's output ends the line of the rank whose fragment it ends. Text without a tag is
 * mpirun's own.
 *
 * @example
 * ```ts
 * const joiner = new MpirunOutputJoiner(mpirunTagPattern(4));
 * joiner.push(Buffer.from('[1,0]<stdout>:ab[1,1]<stdout>:x\n[1,0]<stdout>:c\n'));
 * // [{ rank: 1, line: <x> }, { rank: 0, line: <abc> }]
 * ```
 */
export class MpirunOutputJoiner {
  private readonly splitter = new LineSplitter();
  private readonly tag: RegExp;
  /** Each rank's unterminated line so far, as latin1 text (bytes kept exactly); -1 is mpirun's. */
  private readonly partial = new Map<number, string>();

  constructor(tag: RegExp) {
    this.tag = new RegExp(tag.source, 'g');
  }

  /** The lines that `chunk` completes, in the order they were completed. */
  push(chunk: Buffer): RankLine[] {
    return this.splitter.push(chunk).flatMap((line) => this.join(line.toString('latin1')));
  }

  /** Every unterminated line left (call when mpirun's stream ends). */
  flush(): RankLine[] {
    const last = this.splitter.flush();
    const lines = last === undefined ? [] : this.join(last.toString('latin1'));
    for (const [key, text] of this.partial) lines.push(this.complete(key, text));
    this.partial.clear();
    return lines;
  }

  /** One line of mpirun's output: fragments for several ranks, the last of which it ends. */
  private join(text: string): RankLine[] {
    let key = -1;
    let from = 0;
    this.tag.lastIndex = 0;
    for (let m = this.tag.exec(text); m !== null; m = this.tag.exec(text)) {
      this.append(key, text.slice(from, m.index));
      key = Number(m[1]);
      from = this.tag.lastIndex;
    }
    const line = (this.partial.get(key) ?? '') + text.slice(from);
    this.partial.delete(key);
    return [this.complete(key, line)];
  }

  private append(key: number, text: string): void {
    if (text.length > 0) this.partial.set(key, (this.partial.get(key) ?? '') + text);
  }

  private complete(key: number, text: string): RankLine {
    return { rank: key === -1 ? undefined : key, line: Buffer.from(text, 'latin1') };
  }
}

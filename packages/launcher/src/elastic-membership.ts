import type { Writable } from 'node:stream';
import { excessWorkers, freeSlots, placementOn } from './elastic-slots.js';
import { ElasticLimits, type ElasticLimitOptions } from './elastic-limits.js';
import { survivorTopology, type ElasticTopology } from './elastic.js';
import { describeExit, isFailure } from './failure-report.js';
import type { JobStore } from './job-store.js';
import type { WorkerPlacement } from './plan.js';
import type { RunningWorker, WorkerExit } from './spawn-workers.js';
import { isStopped } from './stopped-workers.js';

/**
 * How supervise() runs an elastic job: its bounds, its reset and blacklist limits, and how to
 * start workers host discovery adds.
 */
export interface ElasticSupervision extends ElasticLimitOptions {
  /** Fewest workers the job may continue with (`--min-np`). */
  readonly minNp: number;
  /** Most workers the job may grow to (`--max-np`). */
  readonly maxNp: number;
  /** The job's first placements: where a worker added on a known host binds. */
  readonly placements: readonly WorkerPlacement[];
  /** Starts one more worker; `extraEnv` goes on top of its `KOLO_*` variables. */
  readonly spawn?: (placement: WorkerPlacement, extraEnv: Record<string, string>) => RunningWorker;
  /**
   * A worker found stopped (SIGSTOP) this long is killed, so the job goes on without it. Default
   * 30 s (the engine's default timeout); kolorun passes `KOLO_TIMEOUT_SECONDS`.
   */
  readonly stoppedKillMs?: number;
  /** `--host-discovery-script`: prints `host:slots` lines; free slots get new workers. */
  readonly hostDiscoveryScript?: string;
  /** How often the discovery script runs. Default 1000 ms (horovodrun: 1 s). */
  readonly discoveryIntervalMs?: number;
}

/**
 * An elastic job's membership as kolorun sees it: worker ids (`KOLO_WORKER_ID`, stable across
 * generations), each one's rank in the current generation, and the generations published so far.
 * A failure that leaves `minNp` workers publishes the survivors' generation; free slots found by
 * host discovery start new workers, up to `maxNp`, in a generation that includes them.
 */
export class ElasticMembership {
  private readonly ids = new Map<RunningWorker, string>();
  private readonly currentRank = new Map<string, number>();
  private generation = 0;
  private nextId: number;
  private published: Promise<void> = Promise.resolve();
  /** After a worker exits 0 the job is finishing: no new workers. */
  private finishing = false;
  /** Workers host discovery stopped: their exits are planned, not failures. */
  private readonly removing = new Set<RunningWorker>();
  private readonly limits: ElasticLimits;
  /** The job may not re-form any more (see {@link halt}). */
  private halted = false;

  constructor(
    initial: readonly RunningWorker[],
    private readonly options: ElasticSupervision,
    private readonly store: JobStore,
    private readonly stderr: Writable,
    private readonly log: (line: string) => void,
    /** Stops a healthy job that may not re-form (`--reset-limit` reached by host discovery). */
    private readonly stop: () => void = () => {},
  ) {
    for (const w of initial) this.ids.set(w, String(w.rank));
    for (const w of initial) this.currentRank.set(String(w.rank), w.rank);
    this.nextId = initial.length;
    this.limits = new ElasticLimits(options);
  }

  /** Resolves once every generation published so far is in the store. */
  settled(): Promise<void> {
    return this.published;
  }

  /**
   * Handles a worker's exit in an elastic job: when host discovery removed it, or it failed, and
   * `minNp` workers are left (and the job is not `stopping` already), publishes the others'
   * generation and returns true. A failure blacklists the worker's host first; when that leaves
   * every host blacklisted, or the reset would pass `resetLimit`, it returns false. A worker that
   * exited 0 means the job is winding down, so discovery adds nobody from then on. False:
   * supervise handles the exit as in any job.
   */
  onExit(worker: RunningWorker, exit: WorkerExit, alive: ReadonlySet<RunningWorker>, stopping: boolean): boolean {
    const removed = this.removing.has(worker);
    if (!removed && !isFailure(exit)) this.finishing = true;
    if ((!removed && !isFailure(exit)) || stopping || alive.size < this.options.minNp) return false;
    const who = `rank ${worker.rank} (pid ${worker.pid ?? 'none'})`;
    const how = removed ? `removed by host discovery (${describeExit(exit)})` : `failed: ${describeExit(exit)}`;
    this.write(this.limits.release());
    const verdict = removed ? undefined : this.limits.onFailure(who, worker.host, [...alive].map((w) => w.host));
    const stop = verdict?.stop ?? this.limits.resetError(this.generation + 1, `after ${who} ${how}`);
    if (stop !== undefined) {
      this.write([verdict?.line, stop]);
      if (!removed) return false;
      this.halt();
      return true;
    }
    const g = this.nextGeneration();
    const id = this.ids.get(worker) ?? String(worker.rank);
    const failedRank = this.currentRank.get(id) ?? worker.rank;
    const assignments = this.assign([...alive].map((w) => this.member(w)));
    this.write([`kolorun: ${who} ${how}; continuing with ${alive.size} worker(s) as elastic generation ${g}`, verdict?.line]);
    this.publish(g, assignments, { rank: failedRank, exit });
    return true;
  }

  /**
   * A worker found stopped: names it to the engines by its rank in this generation, and kills it
   * if it is still stopped `stoppedKillMs` later (its peers' engines have timed out on it by
   * then), so that its exit publishes the next generation. Returns the timer.
   */
  onStopped(worker: RunningWorker): NodeJS.Timeout {
    const rank = this.currentRank.get(this.ids.get(worker) ?? String(worker.rank)) ?? worker.rank;
    this.store.nameSuspect({ rank, exit: { code: null, signal: 'SIGSTOP' } }, this.generation).catch(() => {});
    const afterMs = this.options.stoppedKillMs ?? 30_000;
    const timer = setTimeout(() => {
      if (!isStopped(worker.pid)) return;
      this.stderr.write(`kolorun: rank ${worker.rank} (pid ${worker.pid ?? 'none'}) stayed stopped for ${afterMs / 1000} s; killing it\n`);
      worker.signalGroup('SIGKILL');
      worker.signalGroup('SIGCONT');
    }, afterMs);
    timer.unref();
    return timer;
  }

  /** Host discovery listed `hosts`: the job may use them, and blacklist cooldowns that are over end. */
  onDiscovered(hosts: ReadonlyMap<string, number>): void {
    this.limits.discovered(hosts);
    this.write(this.limits.release());
  }

  /**
   * Stops (SIGTERM) the newest workers on hosts that host discovery now lists with fewer slots
   * than they run (or not at all), never leaving fewer than `minNp`; their exits then publish the
   * next generation (see {@link onExit}). Returns the workers stopped.
   */
  shrink(hosts: ReadonlyMap<string, number>, alive: ReadonlySet<RunningWorker>): RunningWorker[] {
    const staying = [...alive].filter((w) => !this.removing.has(w));
    const removed = excessWorkers(hosts, staying, (w) => Number(this.ids.get(w))).slice(0, Math.max(0, staying.length - this.options.minNp));
    if (this.halted || removed.length === 0) return [];
    // Each stopped worker's exit is one reset.
    const pending = [...alive].filter((w) => this.removing.has(w)).length;
    if (this.haltsAt(this.generation + pending + removed.length, `to remove rank(s) ${removed.map((w) => w.rank).join(', ')}`)) return [];
    for (const w of removed) {
      this.removing.add(w);
      w.signalGroup('SIGTERM');
    }
    return removed;
  }

  /**
   * Starts workers for the free slots in `hosts` (host → slots from discovery), up to `maxNp`,
   * once the workers have joined the current generation (its rank 0 marks it ready), and
   * publishes a generation with them. Resolves to the started workers (none when nothing changed).
   */
  async grow(hosts: ReadonlyMap<string, number>, alive: ReadonlySet<RunningWorker>): Promise<RunningWorker[]> {
    const spawn = this.options.spawn;
    const added = freeSlots(this.limits.usable(hosts), [...alive], this.options.maxNp);
    if (spawn === undefined || added.length === 0 || this.finishing) return [];
    await this.published;
    if (!(await this.store.generationReady(this.generation)) || this.finishing) return [];
    if (this.haltsAt(this.generation + 1, `to add ${added.length} worker(s) on ${added.join(', ')}`)) return [];
    const g = this.nextGeneration();
    const members = [...[...alive].map((w) => this.member(w)), ...added.map((host) => ({ rank: this.nextId++, host }))];
    const assignments = this.assign(members);
    this.publish(g, assignments);
    await this.published;
    const started = members.slice(alive.size).map(({ rank: id, host }) => {
      const worker = spawn(placementOn(host, assignments.get(String(id)) as ElasticTopology, this.options.placements), { KOLO_WORKER_ID: String(id), KOLO_ELASTIC_GENERATION: String(g) });
      this.ids.set(worker, String(id));
      return worker;
    });
    this.stderr.write(`kolorun: host discovery added ${started.length} worker(s) on ${added.join(', ')}; continuing with ${members.length} worker(s) as elastic generation ${g}\n`);
    return started;
  }

  /** True, after stopping the job, when a change `cause` would be reset number `reset`, past the limit. */
  private haltsAt(reset: number, cause: string): boolean {
    const error = this.limits.resetError(reset, cause);
    if (error === undefined) return false;
    this.write([error]);
    this.halt();
    return true;
  }

  /** The job may not re-form: no more changes, and supervise stops the workers. */
  private halt(): void {
    this.finishing = true;
    this.halted = true;
    this.stop();
  }

  private write(lines: readonly (string | undefined)[]): void {
    for (const line of lines) if (line !== undefined) this.stderr.write(`${line}\n`);
  }

  private member(w: RunningWorker): { rank: number; host: string } {
    return { rank: Number(this.ids.get(w) ?? w.rank), host: w.host };
  }

  private assign(members: readonly { rank: number; host: string }[]): Map<string, ElasticTopology> {
    const assignments = survivorTopology(members);
    for (const [id, topology] of assignments) this.currentRank.set(id, topology.rank);
    return assignments;
  }

  private nextGeneration(): number {
    this.generation += 1;
    return this.generation;
  }

  private publish(g: number, assignments: ReadonlyMap<string, ElasticTopology>, failed?: { rank: number; exit: WorkerExit }): void {
    this.published = this.published
      .then(() => this.store.publishGeneration(g, assignments, failed))
      .catch((error: Error) => this.log(`could not publish elastic generation ${g}: ${error.message}`));
  }
}

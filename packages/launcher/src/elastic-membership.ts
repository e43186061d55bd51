import type { Writable } from 'node:stream';
import { survivorTopology, type ElasticTopology } from './elastic.js';
import { describeExit } from './failure-report.js';
import { isLocalHost } from './hosts.js';
import type { JobStore } from './job-store.js';
import type { WorkerPlacement } from './plan.js';
import type { RunningWorker, WorkerExit } from './spawn-workers.js';

/** How supervise() runs an elastic job: its bounds, and how to start workers host discovery adds. */
export interface ElasticSupervision {
  readonly minNp: number;
  readonly maxNp: number;
  /** The job's first placements: where a worker added on a known host binds. */
  readonly placements: readonly WorkerPlacement[];
  /** Starts one more worker; `extraEnv` goes on top of its `KOLO_*` variables. */
  readonly spawn?: (placement: WorkerPlacement, extraEnv: Record<string, string>) => RunningWorker;
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

  constructor(
    initial: readonly RunningWorker[],
    private readonly options: ElasticSupervision,
    private readonly store: JobStore,
    private readonly stderr: Writable,
    private readonly log: (line: string) => void,
  ) {
    for (const w of initial) this.ids.set(w, String(w.rank));
    for (const w of initial) this.currentRank.set(String(w.rank), w.rank);
    this.nextId = initial.length;
  }

  /** Resolves once every generation published so far is in the store. */
  settled(): Promise<void> {
    return this.published;
  }

  /** A worker exited 0: the job is winding down, so discovery adds nobody from now on. */
  noteSuccess(): void {
    this.finishing = true;
  }

  /** Publishes the survivors' generation when `alive` still has `minNp` workers; false otherwise. */
  onFailure(worker: RunningWorker, exit: WorkerExit, alive: ReadonlySet<RunningWorker>): boolean {
    if (alive.size < this.options.minNp) return false;
    const g = this.nextGeneration();
    const id = this.ids.get(worker) ?? String(worker.rank);
    const failedRank = this.currentRank.get(id) ?? worker.rank;
    const assignments = this.assign([...alive].map((w) => this.member(w)));
    this.stderr.write(`kolorun: rank ${worker.rank} (pid ${worker.pid ?? 'none'}) failed: ${describeExit(exit)}; continuing with ${alive.size} worker(s) as elastic generation ${g}\n`);
    this.publish(g, assignments, { rank: failedRank, exit });
    return true;
  }

  /**
   * Starts workers for the free slots in `hosts` (host → slots from discovery), up to `maxNp`,
   * once the workers have joined the current generation (its rank 0 marks it ready), and
   * publishes a generation with them. Resolves to the started workers (none when nothing changed).
   */
  async grow(hosts: ReadonlyMap<string, number>, alive: ReadonlySet<RunningWorker>): Promise<RunningWorker[]> {
    const spawn = this.options.spawn;
    const added = this.freeSlots(hosts, alive);
    if (spawn === undefined || added.length === 0 || this.finishing) return [];
    await this.published;
    if (!(await this.store.generationReady(this.generation)) || this.finishing) return [];
    const g = this.nextGeneration();
    const members = [...[...alive].map((w) => this.member(w)), ...added.map((host) => ({ rank: this.nextId++, host }))];
    const assignments = this.assign(members);
    this.publish(g, assignments);
    await this.published;
    const started = members.slice(alive.size).map(({ rank: id, host }) => {
      const worker = spawn(this.placement(host, assignments.get(String(id)) as ElasticTopology), { KOLO_WORKER_ID: String(id), KOLO_ELASTIC_GENERATION: String(g) });
      this.ids.set(worker, String(id));
      return worker;
    });
    this.stderr.write(`kolorun: host discovery added ${started.length} worker(s) on ${added.join(', ')}; continuing with ${members.length} worker(s) as elastic generation ${g}\n`);
    return started;
  }

  private freeSlots(hosts: ReadonlyMap<string, number>, alive: ReadonlySet<RunningWorker>): string[] {
    const added: string[] = [];
    let total = alive.size;
    for (const [host, slots] of hosts) {
      const used = [...alive].filter((w) => w.host === host).length;
      for (let s = used; s < slots && total < this.options.maxNp; s += 1, total += 1) added.push(host);
    }
    return added;
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

  private placement(host: string, topology: ElasticTopology): WorkerPlacement {
    const known = this.options.placements.find((p) => p.host === host);
    const remote = known?.remote ?? !isLocalHost(host);
    return { ...topology, host, remote, bindAddress: known?.bindAddress ?? (remote ? host : '127.0.0.1') };
  }
}

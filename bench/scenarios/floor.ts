/**
 * Scenario 3, the floor: the unavoidable work of scenario 1 without the engine, to say how close
 * the engine comes to what this machine can do. Per round trip, exactly what the Python chain
 * does: five round trips over a pipe to three python3 processes (into the service, service →
 * process, process → operation, the operation's answer back into the process, the process's
 * answer back into the service), each building its dataclass; and the same six row writes (four
 * messages, two status updates) behind the same four commit barriers (a request is durable before
 * it is handed on, a response before it is returned), group-committed into SQLite (WAL,
 * synchronous=FULL, one transaction per event-loop turn, as the store does). Measured in turns
 * with the engine's own Python chain, so the ratio compares like with like on a busy machine.
 * Run: node --import tsx bench/scenarios/floor.ts [--quick]
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { concurrencyFor, describe, reduce, type LoadFigures } from '../support/chain.ts';
import { closedLoop, type WindowFigures } from '../support/load.ts';
import { benchRequest, chainCall, chainItems, fixturesDir, openBenchProduction } from '../support/production.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { fmt, fmtSpread, spread, type Spread } from '../support/stats.ts';

const pools = quick ? [1, 2] : [1, 2, 4, 8];
const payloadBytes = 64;

/** One python3 process answering JSON lines in order. */
class LineWorker {
  private readonly process: ChildProcessByStdio<Writable, Readable, null>;
  private readonly waiting: Array<(value: unknown) => void> = [];
  private buffered = '';

  constructor() {
    this.process = spawn(process.env.CONVEYOR_PYTHON ?? 'python3', ['-u', join(fixturesDir, 'floor_worker.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.process.stdout.setEncoding('utf8');
    this.process.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 1);
        this.waiting.shift()?.(JSON.parse(line));
      }
    });
  }

  call(step: string, data: unknown): Promise<unknown> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.process.stdin.write(`${JSON.stringify([step, data])}\n`);
    });
  }

  stop(): void {
    this.process.stdin.end();
  }
}

type Write = () => number;
type Pending = { write: Write; resolve: (id: number) => void };

/** Writes submitted during one event-loop turn share one transaction (one fsync). */
class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly transaction: (batch: Pending[]) => number[];

  constructor(db: Database.Database) {
    this.transaction = db.transaction((batch: Pending[]) => batch.map((entry) => entry.write()));
  }

  submit(write: Write): Promise<number> {
    return new Promise((resolve) => {
      this.pending.push({ write, resolve });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        const batch = this.pending;
        this.pending = [];
        const ids = this.transaction(batch);
        batch.forEach((entry, i) => entry.resolve(ids[i]!));
      });
    });
  }
}

function openDatabase(path: string) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id INTEGER, parent_id INTEGER, kind TEXT, source TEXT,
    target TEXT, status TEXT, body TEXT); CREATE INDEX messages_session ON messages (session_id)`);
  const insert = db.prepare('INSERT INTO messages (session_id, parent_id, kind, source, target, status, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const complete = db.prepare("UPDATE messages SET status = 'completed' WHERE id = ?");
  const committer = new GroupCommit(db);
  return {
    db,
    insert: (session: number | null, parent: number | null, kind: string, source: string, target: string, body: unknown) =>
      committer.submit(() =>
        Number(insert.run(session, parent, kind, source, target, kind === 'request' ? 'queued' : 'completed', JSON.stringify(body)).lastInsertRowid),
      ),
    complete: (id: number) => committer.submit(() => complete.run(id).changes),
  };
}

type Store = ReturnType<typeof openDatabase>;

interface Slot {
  service: LineWorker;
  process: LineWorker;
  operation: LineWorker;
}

/** One service → process → operation round trip: the same pipe crossings and commit barriers as the engine. */
async function roundTrip(store: Store, slot: Slot, input: unknown): Promise<unknown> {
  const toProcess = await slot.service.call('service-in', input);
  const processRequest = await store.insert(null, null, 'request', 'Service', 'Process', toProcess);
  const toOperation = await slot.process.call('process-in', toProcess);
  const operationRequest = await store.insert(processRequest, processRequest, 'request', 'Process', 'Operation', toOperation);
  const answer = await slot.operation.call('operation', toOperation);
  await Promise.all([store.insert(processRequest, operationRequest, 'response', 'Operation', 'Process', answer), store.complete(operationRequest)]);
  const processAnswer = await slot.process.call('process-reply', answer);
  await Promise.all([store.insert(processRequest, processRequest, 'response', 'Process', 'Service', processAnswer), store.complete(processRequest)]);
  return slot.service.call('service-reply', processAnswer);
}

/** The floor's chains: `poolSize` sets of three workers, one round trip per set at a time. */
function openFloor(poolSize: number) {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-bench-floor-'));
  const store = openDatabase(join(dir, 'floor.db'));
  const free: Slot[] = Array.from({ length: poolSize }, () => ({ service: new LineWorker(), process: new LineWorker(), operation: new LineWorker() }));
  const all = [...free];
  const waiters: Array<(slot: Slot) => void> = [];
  const payload = 'x'.repeat(payloadBytes);
  return {
    async call(sequence: number) {
      const slot = free.pop() ?? (await new Promise<Slot>((resolve) => waiters.push(resolve)));
      try {
        return await roundTrip(store, slot, { sequence, payload });
      } finally {
        const next = waiters.shift();
        if (next) next(slot);
        else free.push(slot);
      }
    },
    close() {
      for (const slot of all) for (const worker of [slot.service, slot.process, slot.operation]) worker.stop();
      store.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The floor and the engine's Python chain side by side, windows taken in turn (engine, floor,
 * engine, floor…) so that the machine's drifting load weighs on both alike; the ratio is taken
 * per pair of neighbouring windows.
 */
async function floorAndEngine(poolSize: number) {
  const floor = openFloor(poolSize);
  const production = await openBenchProduction({ items: chainItems('python', poolSize) });
  try {
    const concurrency = concurrencyFor(poolSize);
    const chain = chainCall('python', production.running);
    const payload = 'x'.repeat(payloadBytes);
    const engineWindow = (ms: number) => closedLoop((i) => chain(benchRequest(i, payload)), concurrency, ms);
    const floorWindow = (ms: number) => closedLoop((i) => floor.call(i), concurrency, ms);
    await engineWindow(plan.warmupMs);
    await floorWindow(plan.warmupMs);
    const engine: WindowFigures[] = [];
    const bare: WindowFigures[] = [];
    for (let run = 0; run < plan.runs; run++) {
      engine.push(await engineWindow(plan.windowMs));
      bare.push(await floorWindow(plan.windowMs));
    }
    const cpu = (w: WindowFigures) => w.nodeCpuUsPerCall + w.childCpuUsPerCall;
    return {
      floor: reduce(bare, concurrency),
      engine: reduce(engine, concurrency),
      /** Engine round trips/s over floor round trips/s, per pair of windows. */
      ratio: spread(engine.map((w, i) => w.perSecond / bare[i]!.perSecond)),
      /** Floor CPU per round trip over the engine's: the share of the engine's CPU that is unavoidable. */
      cpuRatio: spread(engine.map((w, i) => cpu(bare[i]!) / cpu(w))),
    };
  } finally {
    floor.close();
    await production.close();
  }
}

await runScenario(
  'floor',
  {
    ...plan,
    pools,
    payloadBytes,
    durability: 'WAL, synchronous=FULL',
    pipeRoundTripsPerCall: 5,
    rowWritesPerCall: 6,
    commitBarriersPerCall: 4,
    interleaved: 'engine and floor windows in turn',
  },
  async () => {
    const floor: Record<string, LoadFigures> = {};
    const engine: Record<string, LoadFigures> = {};
    const ratio: Record<string, Spread> = {};
    const cpuRatio: Record<string, Spread> = {};
    for (const poolSize of pools) {
      const key = `pool${poolSize}`;
      const pair = await floorAndEngine(poolSize);
      floor[key] = pair.floor;
      engine[key] = pair.engine;
      ratio[key] = pair.ratio;
      cpuRatio[key] = pair.cpuRatio;
      describe(`floor (no engine), ${poolSize} chain${poolSize === 1 ? '' : 's'} in parallel`, pair.floor);
      describe(`engine, Python S→P→O pool ${poolSize}, windows interleaved with the floor's`, pair.engine);
      console.log(`      engine / floor: ${fmtSpread(pair.ratio, '×')}; floor CPU / engine CPU per round trip ${fmt(pair.cpuRatio.median)}`);
    }
    return { floor, engine, ratio, cpuRatio };
  },
);

/**
 * The floor: the unavoidable work of the Python S→P→O chain without the engine, done the best way
 * this machine allows. Per round trip, five round trips over a pipe to three python3 processes
 * (into the service, service → process, process → operation, the operation's answer back into the
 * process, the process's answer back into the service), each building its dataclass, and the same
 * six row writes (four messages, two status updates) behind the engine's one commit barrier (the
 * session's outcome is durable before the service is answered; requests and the inner response
 * ride in that commit, their callers going on at once), group-committed into SQLite (WAL, one transaction per event-loop turn, the
 * WAL synced with fdatasync off the event loop before a writer is told, as the store does).
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { WalSync } from '../../src/store/sqlite/wal-sync.ts';
import { fixturesDir } from './production.ts';

/** One python3 process (a script of bench/fixtures/python) answering `[kind, data]` JSON lines in order. */
export class LineWorker {
  private readonly process: ChildProcessByStdio<Writable, Readable, null>;
  private readonly waiting: Array<(value: unknown) => void> = [];
  private buffered = '';

  constructor(script = 'floor_worker.py') {
    this.process = spawn(process.env.CONVEYOR_PYTHON ?? 'python3', ['-u', join(fixturesDir, script)], { stdio: ['pipe', 'pipe', 'inherit'] });
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

type Write = () => void;
type Pending = { write: Write; resolve: () => void; reject: (error: unknown) => void };

/**
 * Group commit as the store does it: the writes of one event-loop turn share one transaction,
 * written with synchronous=NORMAL, then the WAL is synced with fdatasync on libuv's thread pool and
 * the writers are told after it (durable as synchronous=FULL, but the loop never stands still for
 * the disk). Writes nobody waits for (a request handed on at once) do not cause a commit: they ride
 * in the next one. One commit at a time; what comes meanwhile waits for the next.
 */
class GroupCommit {
  private pending: Pending[] = [];
  private urgent = 0;
  private flushing = false;
  private scheduled = false;
  private readonly transaction: (batch: Pending[]) => void;

  constructor(
    db: Database.Database,
    private readonly wal: WalSync,
  ) {
    this.transaction = db.transaction((batch: Pending[]) => {
      for (const entry of batch) entry.write();
    });
  }

  submit(write: Write, lazy: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      if (!lazy) this.urgent++;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.scheduled || this.urgent === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.urgent = 0;
    this.flushing = true;
    try {
      this.transaction(batch);
      await this.wal.sync();
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.flushing = false;
      this.schedule();
    }
  }
}

/** The floor's store: the engine's rows in their least form, group-committed and synced as the store does. */
export function openFloorStore(path: string) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id INTEGER, parent_id INTEGER, kind TEXT, source TEXT,
    target TEXT, status TEXT, body TEXT); CREATE INDEX messages_session ON messages (session_id)`);
  const insert = db.prepare('INSERT INTO messages (id, session_id, parent_id, kind, source, target, status, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const complete = db.prepare("UPDATE messages SET status = 'completed' WHERE id = ?");
  const wal = new WalSync(`${path}-wal`);
  const committer = new GroupCommit(db, wal);
  // Ids are assigned when a write is submitted, so a request can be handed on before its commit.
  let nextId = 1;
  return {
    db,
    wal,
    /** A request: handed on at once, committed with the next commit (its response's at the latest). */
    request: (session: number | null, parent: number | null, source: string, target: string, body: unknown): number => {
      const id = nextId++;
      void committer.submit(() => insert.run(id, session ?? id, parent, 'request', source, target, 'queued', JSON.stringify(body)), true);
      return id;
    },
    /**
     * A response and its request's completion. `lazy`: the caller is handling a request of its own
     * (re-run after a crash anyway), so it goes on at once and the rows ride in the next commit;
     * otherwise they are durable before the caller is answered.
     */
    respond: (session: number, request: number, source: string, target: string, body: unknown, lazy: boolean): Promise<unknown> => {
      const id = nextId++;
      return Promise.all([
        committer.submit(() => insert.run(id, session, request, 'response', source, target, 'completed', JSON.stringify(body)), lazy),
        committer.submit(() => complete.run(request), lazy),
      ]);
    },
  };
}

type Store = ReturnType<typeof openFloorStore>;

interface Slot {
  service: LineWorker;
  process: LineWorker;
  operation: LineWorker;
}

/** One service → process → operation round trip: the engine's pipe crossings, row writes and commit barrier. */
async function roundTrip(store: Store, slot: Slot, input: unknown): Promise<unknown> {
  const toProcess = await slot.service.call('service-in', input);
  const processRequest = store.request(null, null, 'Service', 'Process', toProcess);
  const toOperation = await slot.process.call('process-in', toProcess);
  const operationRequest = store.request(processRequest, processRequest, 'Process', 'Operation', toOperation);
  const answer = await slot.operation.call('operation', toOperation);
  void store.respond(processRequest, operationRequest, 'Operation', 'Process', answer, true);
  const processAnswer = await slot.process.call('process-reply', answer);
  await store.respond(processRequest, processRequest, 'Process', 'Service', processAnswer, false);
  return slot.service.call('service-reply', processAnswer);
}

/** Runs `work` on a free slot, one call per slot at a time; callers wait in order for one to come free. */
export function slotPool<T>(slots: T[]): <R>(work: (slot: T) => Promise<R>) => Promise<R> {
  const free = [...slots];
  const waiters: Array<(slot: T) => void> = [];
  return async (work) => {
    const slot = free.pop() ?? (await new Promise<T>((resolve) => waiters.push(resolve)));
    try {
      return await work(slot);
    } finally {
      const next = waiters.shift();
      if (next) next(slot);
      else free.push(slot);
    }
  };
}

/** The floor's chains: `poolSize` sets of three workers, one round trip per set at a time. */
export function openFloor(poolSize: number, payloadBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-bench-floor-'));
  const store = openFloorStore(join(dir, 'floor.db'));
  const all: Slot[] = Array.from({ length: poolSize }, () => ({ service: new LineWorker(), process: new LineWorker(), operation: new LineWorker() }));
  const onSlot = slotPool(all);
  const payload = 'x'.repeat(payloadBytes);
  return {
    call(sequence: number) {
      return onSlot((slot) => roundTrip(store, slot, { sequence, payload }));
    },
    close() {
      for (const slot of all) for (const worker of [slot.service, slot.process, slot.operation]) worker.stop();
      store.wal.close();
      store.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

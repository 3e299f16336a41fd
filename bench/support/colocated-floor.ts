/**
 * A floor for a bridge the engine does not have: the service, process and operation of one chain in
 * one python3 process, calling each other in process (bench/fixtures/python/colocated_floor_worker.py).
 * Per round trip: the input into the worker, the four messages' rows out of it in one line, their
 * commit (the same six row writes and the same one barrier as the floor, into the same store), the
 * word that they are durable back in, the service's answer out — two pipe round trips instead of
 * five. It answers how far a different design would carry the Python chain on this machine, which
 * the floor (the engine's own design done the cheapest way) cannot.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { openFloorStore } from './floor-chain.ts';
import { fixturesDir } from './production.ts';

type Line = [kind: string, data: unknown];
type Store = ReturnType<typeof openFloorStore>;

/** One python3 process hosting a whole chain; one call at a time. */
class ChainWorker {
  private readonly process: ChildProcessByStdio<Writable, Readable, null>;
  private onLine: ((line: Line) => void) | null = null;
  private buffered = '';

  constructor() {
    this.process = spawn(process.env.CONVEYOR_PYTHON ?? 'python3', ['-u', join(fixturesDir, 'colocated_floor_worker.py')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.process.stdout.setEncoding('utf8');
    this.process.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
        const line = JSON.parse(this.buffered.slice(0, end)) as Line;
        this.buffered = this.buffered.slice(end + 1);
        this.onLine?.(line);
      }
    });
  }

  /** Sends `line` and resolves with the worker's next line. */
  exchange(line: Line): Promise<Line> {
    return new Promise((resolve) => {
      this.onLine = resolve;
      this.process.stdin.write(`${JSON.stringify(line)}\n`);
    });
  }

  stop(): void {
    this.process.stdin.end();
  }
}

/** One round trip: the rows of the chain's four messages committed before the service goes on. */
async function roundTrip(store: Store, worker: ChainWorker, input: unknown): Promise<unknown> {
  const [, rows] = (await worker.exchange(['call', input])) as [string, unknown[]];
  const [toProcess, toOperation, answer, processAnswer] = rows;
  const processRequest = store.request(null, null, 'Service', 'Process', toProcess);
  const operationRequest = store.request(processRequest, processRequest, 'Process', 'Operation', toOperation);
  void store.respond(processRequest, operationRequest, 'Operation', 'Process', answer, true);
  await store.respond(processRequest, processRequest, 'Process', 'Service', processAnswer, false);
  const [, result] = await worker.exchange(['committed', null]);
  return result;
}

/** `poolSize` co-located chains, one round trip each at a time. */
export function openColocatedFloor(poolSize: number, payloadBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-bench-colocated-'));
  const store = openFloorStore(join(dir, 'floor.db'));
  const all = Array.from({ length: poolSize }, () => new ChainWorker());
  const free = [...all];
  const waiters: Array<(worker: ChainWorker) => void> = [];
  const payload = 'x'.repeat(payloadBytes);
  return {
    async call(sequence: number) {
      const worker = free.pop() ?? (await new Promise<ChainWorker>((resolve) => waiters.push(resolve)));
      try {
        return await roundTrip(store, worker, { sequence, payload });
      } finally {
        const next = waiters.shift();
        if (next) next(worker);
        else free.push(worker);
      }
    },
    close() {
      for (const worker of all) worker.stop();
      store.wal.close();
      store.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

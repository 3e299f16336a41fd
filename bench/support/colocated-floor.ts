/**
 * A floor for a bridge the engine does not have: the service, process and operation of one chain in
 * one python3 process, calling each other in process (bench/fixtures/python/colocated_floor_worker.py).
 * Per round trip: the input into the worker, the four messages' rows out of it in one line, their
 * commit (the same six row writes and the same one barrier as the floor, into the same store), the
 * word that they are durable back in, the service's answer out — two pipe round trips instead of
 * five. It answers how far a different design would carry the Python chain on this machine, which
 * the floor (the engine's own design done the cheapest way) cannot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineWorker, openFloorStore, slotPool } from './floor-chain.ts';

type Store = ReturnType<typeof openFloorStore>;

/** One round trip: the rows of the chain's four messages committed before the service goes on. */
async function roundTrip(store: Store, worker: LineWorker, input: unknown): Promise<unknown> {
  const [, rows] = (await worker.call('call', input)) as [string, unknown[]];
  const [toProcess, toOperation, answer, processAnswer] = rows;
  const processRequest = store.request(null, null, 'Service', 'Process', toProcess);
  const operationRequest = store.request(processRequest, processRequest, 'Process', 'Operation', toOperation);
  void store.respond(processRequest, operationRequest, 'Operation', 'Process', answer, true);
  await store.respond(processRequest, processRequest, 'Process', 'Service', processAnswer, false);
  const [, result] = (await worker.call('committed', null)) as [string, unknown];
  return result;
}

/** `poolSize` co-located chains (one python3 process each), one round trip each at a time. */
export function openColocatedFloor(poolSize: number, payloadBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-bench-colocated-'));
  const store = openFloorStore(join(dir, 'floor.db'));
  const all = Array.from({ length: poolSize }, () => new LineWorker('colocated_floor_worker.py'));
  const onWorker = slotPool(all);
  const payload = 'x'.repeat(payloadBytes);
  return {
    call(sequence: number) {
      return onWorker((worker) => roundTrip(store, worker, { sequence, payload }));
    },
    close() {
      for (const worker of all) worker.stop();
      store.wal.close();
      store.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

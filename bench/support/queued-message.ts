/** The message the store-level benchmarks insert: a queued request with a 160-byte payload. */
import type { NewMessage } from '../../src/store/store.ts';

export function queuedBenchMessage(sequence: number, target = 'BenchOperation'): NewMessage {
  return {
    namespace: 'USER',
    sessionId: null,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'BenchService',
    target,
    responseRequired: false,
    status: 'queued',
    priority: 0,
    description: '',
    body: { classname: 'bench.Message', encoding: 'json', data: JSON.stringify({ sequence, payload: 'x'.repeat(160) }) },
  };
}

/**
 * A benchmark production on a real SQLite store in a temporary folder, run by the engine (opened,
 * defined and started through its management façade), with the two ways of putting work into it:
 * pushing an input into a business service, or sending a request to an item as a pseudo-service.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { carriedMinChars } from '../../src/bridge/frames.ts';
import type { Reply } from '../../src/core/component.ts';
import type { ComponentKind } from '../../src/core/components.ts';
import { carryBodyBytes } from '../../src/core/message-bytes.ts';
import type { MessageBody } from '../../src/core/message.ts';
import { newItem, newProduction, type ItemDefinition } from '../../src/core/production.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { RunningProduction } from '../../src/engine/running-production.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Durability } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { repoRoot } from './results.ts';

export const namespace = 'USER';
export const fixturesDir = join(repoRoot, 'bench', 'fixtures', 'python');
/** The pseudo-item the benchmark sends as when it stands in for a business service. */
export const driverName = 'BenchDriver';

export type ChainKind = 'python' | 'builtin';

export interface BenchProduction {
  store: Store;
  running: RunningProduction;
  dir: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  items: ItemDefinition[];
  /** Reuse a store file (growth scenario); default a fresh one in a new temporary folder. */
  storePath?: string;
  /** Default `full`, the store's default: every commit reaches the disk (fsync). */
  durability?: Durability;
  /** A postgres:// store instead of SQLite. */
  storeUrl?: string;
}

const pythonClasses: Array<{ name: string; kind: ComponentKind; className: string }> = [
  { name: 'Bench.Service', kind: 'service', className: 'BenchService' },
  { name: 'Bench.Process', kind: 'process', className: 'BenchProcess' },
  { name: 'Bench.Operation', kind: 'operation', className: 'BenchOperation' },
];

/** Registers the Python classes of bench/fixtures/python as IoP's migration would. */
export async function registerPythonClasses(store: Store): Promise<void> {
  for (const binding of pythonClasses) {
    await store.classes.put(namespace, {
      name: binding.name,
      kind: binding.kind,
      runtime: 'python',
      module: 'bench_components',
      className: binding.className,
      classpaths: [fixturesDir],
      settings: [],
      adapterType: null,
      updatedAt: Date.now(),
    });
  }
}

/**
 * The service → process → operation chain. Python: three Python items (the service is pushed
 * into). Built-in: Conveyor.Process.Router → Conveyor.Operation.Echo, the benchmark acting as the
 * service (no built-in service takes pushed input).
 */
export function chainItems(kind: ChainKind, poolSize: number): ItemDefinition[] {
  if (kind === 'python') {
    return [
      newItem('Service', 'Bench.Service', { poolSize }),
      newItem('Process', 'Bench.Process', { poolSize }),
      newItem('Operation', 'Bench.Operation', { poolSize }),
    ];
  }
  return [
    newItem('Process', 'Conveyor.Process.Router', { poolSize, settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Operation' }] }),
    newItem('Operation', 'Conveyor.Operation.Echo', { poolSize }),
  ];
}

export async function openBenchProduction(options: OpenOptions): Promise<BenchProduction> {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-'));
  const store = options.storeUrl
    ? await openStore({ url: options.storeUrl })
    : await openStore({ sqlitePath: options.storePath ?? join(dir, 'conveyor.db'), durability: options.durability ?? 'full' });
  await registerPythonClasses(store);
  const engine = await Engine.open(store, { graceMs: 2_000, onBackgroundError: (error) => console.error('bench engine:', error) });
  const definition = newProduction('Bench.Production', options.items);
  const handle = await engine.namespace(namespace);
  await handle.putDefinition(definition);
  await handle.start(definition.name);
  const running = runningProduction(engine);
  const broken = [...running.hosts.values()].filter((host) => host.state !== 'running');
  if (broken.length > 0) throw new Error(`items not running: ${broken.map((h) => `${h.name} (${h.error})`).join(', ')}`);
  return {
    store,
    running,
    dir,
    async close() {
      await handle.stop();
      await engine.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The running production behind the façade: the namespace handle has no way to push input into a service or
 * to send as a pseudo-service at full speed (test() restarts and serialises).
 */
function runningProduction(engine: Engine): RunningProduction {
  const running = engine.runningProduction(namespace);
  if (!running) throw new Error(`no production runs in namespace ${namespace}`);
  return running;
}

/** The last large payload's JSON text as UTF-8, so that a run encodes it once, not once per request. */
let encodedPayload: { payload: string; json: Buffer } | null = null;
const closingBrace = Buffer.from('}');

/**
 * A BenchRequest body. A large one (a body the engine carries as bytes) is built as the UTF-8 bytes a
 * client would have sent, its payload encoded once per run: JSON-encoding a 1 MB payload per request
 * (and flattening the result when it was framed) cost the benchmark itself about 7 ms of the
 * engine's measured CPU per round trip (docs/benchmarks.md, issue 16, large bodies).
 */
export function benchRequest(sequence: number, payload: string): MessageBody {
  if (payload.length < carriedMinChars) return { classname: 'bench_message.BenchRequest', encoding: 'json', data: JSON.stringify({ sequence, payload }) };
  if (encodedPayload?.payload !== payload) encodedPayload = { payload, json: Buffer.from(JSON.stringify(payload), 'utf8') };
  const body: MessageBody = { classname: 'bench_message.BenchRequest', encoding: 'json', data: '' };
  carryBodyBytes(body, Buffer.concat([Buffer.from(`{"sequence":${sequence},"payload":`), encodedPayload.json, closingBrace]));
  return body;
}

/**
 * One synchronous request from the benchmark (as a service) to an item; resolves with the reply. Sent
 * as a component's `send_request_sync` sends (engine/message-call.ts): the caller waits for the reply,
 * not for the request's own commit. Without `replyOnly` every hop paid a commit of its request and
 * then, after that fsync, one of its response: two fsyncs in a row where a service's hop has one.
 */
export async function sendSync(running: RunningProduction, target: string, body: MessageBody): Promise<Reply> {
  const sent = await running.send({ source: driverName, parentId: null, sessionId: null }, target, body, {
    responseRequired: true,
    description: '',
    replyOnly: true,
  });
  return sent.reply as Promise<Reply>;
}

/** One round trip through the whole chain: into the Python service, or into the process as the service. */
export function chainCall(kind: ChainKind, running: RunningProduction): (body: MessageBody) => Promise<Reply> {
  if (kind === 'python') return async (body) => (await running.processInput('Service', body)).result;
  return (body) => sendSync(running, 'Process', body);
}

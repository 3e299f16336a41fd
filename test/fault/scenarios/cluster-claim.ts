/**
 * kill -9 of PostgreSQL cluster nodes at random instants while they claim work: requests are
 * written into the shared store (as an accepting node would) and two nodes claim them, route them
 * on and record them. A killed node is started again; requests it had claimed go back to the queue
 * when their lease expires. Every request must be recorded at least once.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newItem, newProduction } from '../../../src/core/production.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { NewMessage } from '../../../src/store/store.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { eventually } from '../../support/temp-dir.ts';
import { deliveryCounts, sleep, type FaultFigures, type SeededRandom } from '../support/fault-run.ts';

export interface ClusterClaimOptions {
  dir: string;
  random: SeededRandom;
  kills: number;
  /** postgres://… with `schema=` naming a schema of its own. */
  storeUrl: string;
  /** Requests written per second while the nodes are killed and restarted (default 100). */
  rate?: number;
}

const production = 'Fault.Cluster';
const leaseMs = 2000;

export async function clusterClaimFaults(options: ClusterClaimOptions): Promise<FaultFigures> {
  const { dir, random } = options;
  const record = join(dir, 'record.jsonl');
  const store = await openStore({ url: options.storeUrl });
  const start = (name: string) => startServerProcess(join(dir, name), ['--store', options.storeUrl], { CONVEYOR_LEASE_MS: String(leaseMs) });
  const nodes: ServerProcess[] = [];
  try {
    await store.productions.put(
      'USER',
      newProduction(production, [
        newItem('Router', 'Conveyor.Process.Router', { poolSize: 2, settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Recorder' }] }),
        newItem('Recorder', 'Conveyor.Operation.Echo', { poolSize: 2, settings: [{ target: 'Host', name: 'FilePath', value: record }] }),
      ]),
    );
    nodes.push(await start('a'), await start('b'));
    await call(nodes[0]!, 'POST', '/api/iop/start', { production });
    for (const node of nodes) await eventually(async () => (await statusOf(node)) === 'running', 'both nodes to run the production', 30_000);

    // Requests keep coming for as long as nodes are being killed, so every kill lands amid claims.
    let written = 0;
    let killing = true;
    const batch = Math.max(1, Math.round((options.rate ?? 100) / 20));
    const producer = (async () => {
      while (killing) {
        await store.messages.insert(Array.from({ length: batch }, () => request(written++)));
        await sleep(50);
      }
    })();
    for (let kill = 0; kill < options.kills; kill++) {
      await sleep(random.between(200, 1500));
      const index = random.between(0, nodes.length - 1);
      await nodes[index]!.kill('SIGKILL');
      nodes[index] = await start(index === 0 ? 'a' : 'b');
    }
    killing = false;
    await producer;
    const total = written;
    for (const node of nodes) await eventually(async () => (await statusOf(node)) === 'running', 'the restarted node to run the production again', 30_000);
    const lines = await eventually(
      async () => {
        const recordedLines = await recorded(record);
        return new Set(recordedLines).size >= total ? recordedLines : undefined;
      },
      `all ${total} requests to be recorded`,
      90_000,
    ).catch(async () => recorded(record));
    return { faults: options.kills, checked: total, ...deliveryCounts(lines, total), notes: `2 nodes, lease ${leaseMs} ms` };
  } finally {
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await store.close();
  }
}

function request(n: number): NewMessage {
  return {
    namespace: 'USER',
    sessionId: null,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'Fault.Producer',
    target: 'Router',
    responseRequired: false,
    status: 'queued',
    priority: 0,
    description: `fault ${n}`,
    body: { classname: 'Ens.StringRequest', encoding: 'native', data: JSON.stringify({ StringValue: `message ${n}` }) },
  };
}

async function statusOf(node: ServerProcess): Promise<string> {
  return ((await node.local('GET', '/api/iop/status')).json as { status: string }).status;
}

async function call(node: ServerProcess, method: string, path: string, body?: unknown): Promise<void> {
  const reply = await node.local(method, path, body);
  if (reply.status !== 200) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text}`);
}

async function recorded(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse((JSON.parse(line) as { data: string }).data).StringValue as string);
}

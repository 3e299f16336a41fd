/**
 * kill -9 at random instants while a real server carries a stream of messages (file inbound →
 * router → recording operation on SQLite). Every file handed to the inbox must end up recorded:
 * a file is removed only after its message row committed, and queued or in-flight messages resume
 * at the next start. Duplicates (a message recorded, then killed before it was marked done) are
 * counted, not failed: delivery is at least once.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newItem, newProduction } from '../../../src/core/production.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { eventually } from '../../support/temp-dir.ts';
import { deliveryCounts, sleep, type FaultFigures, type SeededRandom } from '../support/fault-run.ts';

export interface MessageStreamOptions {
  dir: string;
  random: SeededRandom;
  kills: number;
  /** Files written per second while the server is killed and restarted. */
  rate?: number;
  /** Longest random wait between a start and its kill (ms). */
  maxKillDelayMs?: number;
}

const production = 'Fault.Stream';

export async function messageStreamFaults(options: MessageStreamOptions): Promise<FaultFigures> {
  const { dir, random } = options;
  const home = join(dir, 'home');
  const inbox = join(dir, 'in');
  const record = join(dir, 'record.jsonl');
  await mkdir(inbox, { recursive: true });
  await defineProduction(home, inbox, record);

  let server: ServerProcess | null = null;
  const writer = new PacedWriter(dir, inbox, options.rate ?? 150);
  const midStream: number[] = [];
  try {
    writer.start();
    for (let kill = 0; kill < options.kills; kill++) {
      server = await startServerProcess(home);
      await startProduction(server);
      await sleep(random.between(50, options.maxKillDelayMs ?? 1200));
      await server.kill('SIGKILL');
      server = null;
      midStream.push((await recorded(record)).length);
    }
    server = await startServerProcess(home);
    await startProduction(server);
    const written = await writer.stop();
    const lines = await eventually(
      async () => {
        const recordedLines = await recorded(record);
        return new Set(recordedLines).size >= written && (await readdir(inbox)).length === 0 ? recordedLines : undefined;
      },
      `all ${written} messages to be recorded`,
      90_000,
    ).catch(async () => recorded(record));
    const { lost, duplicated } = deliveryCounts(lines, written);
    await server.kill('SIGTERM');
    server = null;
    return {
      faults: options.kills,
      checked: written,
      lost,
      duplicated,
      notes: `messages recorded when each kill landed: ${midStream.join(', ')}`,
    };
  } finally {
    await writer.stop();
    await server?.kill('SIGKILL');
  }
}

async function defineProduction(home: string, inbox: string, record: string): Promise<void> {
  const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
  try {
    await store.productions.put(
      'USER',
      newProduction(production, [
        newItem('FileIn', 'Conveyor.Service.FileInbound', {
          settings: [
            { target: 'Adapter', name: 'FilePath', value: inbox },
            { target: 'Adapter', name: 'CallInterval', value: '0.05' },
            { target: 'Host', name: 'TargetConfigNames', value: 'Router' },
          ],
        }),
        newItem('Router', 'Conveyor.Process.Router', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Recorder' }] }),
        newItem('Recorder', 'Conveyor.Operation.Echo', { settings: [{ target: 'Host', name: 'FilePath', value: record }] }),
      ]),
    );
  } finally {
    await store.close();
  }
}

/** After a kill the production shows troubled; starting it resumes what was queued. */
async function startProduction(server: ServerProcess): Promise<void> {
  const reply = await server.local('POST', '/api/iop/start', { production });
  if (reply.status !== 200) throw new Error(`start answered ${reply.status}: ${reply.text}`);
}

/** The StringValue of every recorded message, one per line of the recording file. */
async function recorded(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse((JSON.parse(line) as { data: string }).data).StringValue as string);
}

/** Hands files to the inbox at a steady rate (written aside, then renamed in: never half a file). */
class PacedWriter {
  #written = 0;
  #running: Promise<void> | null = null;
  #stopping = false;

  constructor(
    private readonly dir: string,
    private readonly inbox: string,
    private readonly perSecond: number,
  ) {}

  start(): void {
    this.#running = this.#loop();
  }

  /** Stops writing; resolves with the number of files handed over. */
  async stop(): Promise<number> {
    this.#stopping = true;
    await this.#running;
    return this.#written;
  }

  async #loop(): Promise<void> {
    const batch = Math.max(1, Math.round(this.perSecond / 20));
    while (!this.#stopping) {
      for (let i = 0; i < batch; i++, this.#written++) {
        const name = `m${String(this.#written).padStart(6, '0')}.txt`;
        await writeFile(join(this.dir, name), `message ${this.#written}`);
        await rename(join(this.dir, name), join(this.inbox, name));
      }
      await sleep(50);
    }
  }
}

/**
 * End to end: a real server process runs a production fed by files; the server is killed with
 * SIGKILL mid-stream; after a restart the production reports troubled, is started again, and every
 * accepted message is delivered (duplicates are counted and reported, none may be lost).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newItem, newProduction } from '../../src/core/production.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const total = 400;

async function recorded(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse((JSON.parse(line) as { data: string }).data).StringValue as string);
}

describe('crash recovery of a real server', () => {
  const dir = tempDir();
  let server: ServerProcess | null = null;
  afterAll(async () => {
    await server?.kill('SIGKILL');
    dir.remove();
  });

  it('delivers every accepted message after kill -9 and shows troubled in between', async () => {
    const home = join(dir.path, 'home');
    const inbox = join(dir.path, 'in');
    const record = join(dir.path, 'record.jsonl');
    const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
    await store.productions.put(
      'USER',
      newProduction('Crash.Files', [
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
    await store.close();

    server = await startServerProcess(home);
    expect((await server.local('POST', '/api/iop/start', { production: 'Crash.Files' })).status).toBe(200);

    // Files appear one by one (written aside, then renamed in, so the service never sees half a file).
    let written = 0;
    const writer = (async () => {
      for (; written < total; written++) {
        const name = `m${String(written).padStart(4, '0')}.txt`;
        await writeFile(join(dir.path, name), `message ${written}`);
        await rename(join(dir.path, name), join(inbox, name));
        if (written % 20 === 0) await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await eventually(async () => (await recorded(record)).length >= total / 4, 'a quarter of the stream to be recorded');
    await server.kill('SIGKILL');
    await writer;
    const beforeRestart = (await recorded(record)).length;
    expect(beforeRestart).toBeLessThan(total);

    server = await startServerProcess(home);
    expect((await server.local('GET', '/api/iop/status')).json).toEqual({ production: 'Crash.Files', status: 'troubled' });
    expect((await server.local('POST', '/api/iop/start', {})).status).toBe(200);

    const all = await eventually(
      async () => {
        const lines = await recorded(record);
        const pending = await readdir(inbox);
        return new Set(lines).size === total && pending.length === 0 ? lines : undefined;
      },
      'every message to be recorded',
      60_000,
    );
    const duplicates = all.length - new Set(all).size;
    console.log(`crash recovery: ${total} messages, ${beforeRestart} recorded before kill -9, ${duplicates} delivered twice, 0 lost`);
    for (let i = 0; i < total; i++) expect(all).toContain(`message ${i}`);
    await server.kill('SIGTERM');
    server = null;
  });
});

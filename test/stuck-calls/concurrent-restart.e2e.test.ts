/**
 * Concurrent test calls that restart their target (restart defaults to true) while a job of the
 * target holds a message, against a real server with real python3 workers: each call gets its
 * reply, and the item is left running. Each test's restart and send are one command on the item,
 * so another test's restart cannot stop the item in between (that call was refused as stopped).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { answersWithin, errorOf, fixtureSettings, inFlight, recorded } from './support.ts';

/** Each restart waits out the held message (grace, then a kill): generous for three in a row. */
const restartsDeadline = 120_000;

describe('concurrent test calls with restart on', () => {
  const dir = tempDir('conveyor-restart-race-');
  let server: ServerProcess;
  const call = (method: string, path: string, body?: unknown) => server.local(method, `/api/iop${path}`, body);
  const test = (body: Record<string, unknown>) => call('POST', '/test', body);

  beforeAll(async () => {
    server = await startServerProcess(join(dir.path, 'home'), [], { STUCK_DIR: dir.path });
    const migrated = await call('PUT', '/migrate', { local_path: fixtureSettings });
    expect(migrated.status, migrated.text).toBe(200);
    const started = await call('POST', '/start', { production: 'Stuck.Production' });
    expect(started.status, started.text).toBe(200);
  }, 90_000);

  afterAll(async () => {
    writeFileSync(join(dir.path, 'open'), '');
    await server?.kill('SIGKILL');
    dir.remove();
  });

  it('three tests restarting an item whose job holds a message each get their reply, and the item stays running', async () => {
    // The Gate takes this message and holds it while its gate file is missing.
    const held = test({ target: 'Gate', classname: 'stuck_msg.Ping', body: { text: 'held' }, restart: false, timeout: 60 });
    await inFlight(dir.path, 'held');

    const texts = ['a', 'b', 'c'];
    const calls = texts.map((text) => test({ target: 'Gate', classname: 'stuck_msg.Ping', body: { text }, timeout: 90 }));
    // The first restart takes the held job's grace before it ends it, so all three calls are queued on
    // the item by the time one of their messages reaches the Gate: then the gate opens.
    await eventually(
      () => recorded(dir.path, 'record.txt.entered').some((text) => texts.includes(text)) || undefined,
      'a test message to reach the Gate',
      60_000,
    );
    writeFileSync(join(dir.path, 'open'), '');

    const replies = await answersWithin(restartsDeadline, 'the three restarting tests', Promise.all(calls));
    replies.forEach((reply, index) => {
      expect(reply.status, errorOf(reply)).toBe(200);
      expect(JSON.parse((reply.json as { body: string }).body)).toEqual({ text: texts[index] });
    });

    // The item runs: a test without a restart is answered.
    const after = await answersWithin(
      30_000,
      'a test without restart',
      test({ target: 'Gate', classname: 'stuck_msg.Ping', body: { text: 'after' }, restart: false }),
    );
    expect(after.status, errorOf(after)).toBe(200);

    // The held message's job was ended by the first restart: its call ends with a clear error at its timeout.
    const released = await answersWithin(restartsDeadline, 'the held test call', held);
    expect(released.status).toBe(500);
    expect(errorOf(released)).toMatch(/Gate did not answer test message \d+ within 60000 ms/);
  }, 300_000);
});

/**
 * SIGTERM while user code never answers (an on_message that waits forever, an on_tear_down that
 * never returns): the server and every process it started end within the configured shutdown time,
 * and the message in flight is still queued for the next start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { alive, answersWithin, fixtureSettings, inFlight, recorded, workerIds } from './support.ts';

describe('SIGTERM with stuck user code', () => {
  const dir = tempDir('conveyor-sigterm-');
  const home = join(dir.path, 'home');
  let server: ServerProcess | null = null;

  afterAll(async () => {
    writeFileSync(join(dir.path, 'open'), '');
    await server?.kill('SIGKILL');
    dir.remove();
  });

  it('ends the server and all its workers within --shutdown-timeout; the message in flight resumes after', async () => {
    const limitMs = 6_000;
    const running = await startServerProcess(home, ['--shutdown-timeout', String(limitMs)], { STUCK_DIR: dir.path });
    server = running;
    expect((await running.local('PUT', '/api/iop/migrate', { local_path: fixtureSettings })).status).toBe(200);
    expect((await running.local('POST', '/api/iop/start', { production: 'Stuck.Production' })).status).toBe(200);
    const stuck = running.local('POST', '/api/iop/test', { target: 'Gate', classname: 'stuck_msg.Ping', body: { text: 'at-shutdown' }, timeout: 600 });
    stuck.catch(() => undefined);
    await inFlight(dir.path, 'at-shutdown');
    const workers = workerIds(running);
    expect(workers.length).toBeGreaterThan(0);

    // Liveness: the limit plus a generous margin for a loaded machine.
    await answersWithin(limitMs + 20_000, 'the server after SIGTERM', running.kill('SIGTERM'));
    await eventually(() => workers.every((pid) => !alive(pid)) || undefined, 'every worker to be gone', 10_000);

    // Next start, the gate open: the message that was in flight is handled.
    writeFileSync(join(dir.path, 'open'), '');
    server = await startServerProcess(home, [], { STUCK_DIR: dir.path });
    expect((await server.local('POST', '/api/iop/start', { production: 'Stuck.Production' })).status).toBe(200);
    await eventually(() => recorded(dir.path, 'record.txt').includes('at-shutdown') || undefined, 'the message in flight to resume', 30_000);
  }, 120_000);

  it('refuses a shutdown timeout that is not a positive number', async () => {
    await expect(startServerProcess(join(dir.path, 'other'), ['--shutdown-timeout', 'soon'])).rejects.toThrow(/shutdownTimeoutMs must be a number/);
  });
});

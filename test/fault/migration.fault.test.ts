/**
 * kill -9 of a real server at random (seeded) instants during PUT /migrate and in-place migrations:
 * old or new, never a mix, nothing left behind. And the old code keeps running while a new package
 * is being validated, and after it is rejected.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareMigration } from '../../src/engine/migration/migrate.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { reportFigures, SeededRandom, sleep } from './support/fault-run.ts';
import { migrationFaults, observe, packageFiles, production, singleVersion } from './scenarios/migration.ts';

describe('kill -9 during a migration', () => {
  const dir = tempDir('conveyor-fault-migration-');
  afterAll(() => dir.remove());

  it('leaves the old or the new package and registrations, complete, with nothing left behind', async () => {
    const random = new SeededRandom();
    const figures = await migrationFaults({ dir: dir.path, random, kills: 3 });
    reportFigures('migration', random, figures);
    expect(figures.lost, `seed ${random.seed}: ${figures.notes}`).toBe(0);
  }, 180_000);
});

describe('a migration that is rejected', () => {
  const dir = tempDir('conveyor-fault-rejected-');
  afterAll(() => dir.remove());

  it('never lets a running item import the new code, not even when restarted while it is validated', async () => {
    const home = join(dir.path, 'home');
    const server = await startServerProcess(home);
    try {
      const version = async () => {
        const reply = await server.local('POST', '/api/iop/test', { target: 'Op', classname: 'messages.VersionRequest', body: {}, restart: false });
        expect(reply.status, reply.text).toBe(200);
        return (JSON.parse((reply.json as { body: string }).body) as { version: string }).version;
      };
      expect((await server.local('PUT', '/api/iop/migrate', { package: 'python', body: packageFiles(1) })).status).toBe(200);
      expect((await server.local('POST', '/api/iop/start', { production })).status).toBe(200);
      expect(await version()).toBe('v1');

      // v2's settings.py takes its time, then fails: the item restarted meanwhile must still load v1.
      const slowRejected = packageFiles(2, "import time\ntime.sleep(3)\nraise ValueError('v2 is rejected on purpose')");
      const migration = server.local('PUT', '/api/iop/migrate', { package: 'python', body: slowRejected });
      await sleep(1000);
      expect((await server.local('POST', '/api/iop/component/restart', { component: 'Op' })).status).toBe(200);
      expect(await version()).toBe('v1');
      const rejected = await migration;
      expect(rejected.status).toBe(500);
      expect((rejected.json as { error: string }).error).toMatch(/v2 is rejected on purpose/);
      expect((await server.local('POST', '/api/iop/component/restart', { component: 'Op' })).status).toBe(200);
      expect(await version()).toBe('v1');
    } finally {
      await server.kill('SIGTERM');
    }
    const seen = await observe(home, join(home, 'packages', 'USER', 'python'));
    expect(singleVersion(seen, true), JSON.stringify(seen)).toBe('v1');
  }, 120_000);
});

describe('a migration interrupted between its steps', () => {
  const dir = tempDir('conveyor-fault-interrupted-');
  afterAll(() => dir.remove());

  /** What a kill leaves after staging v2 (and, when `committed`, after its commit): the state the next start must settle. */
  async function interrupt(home: string, committed: boolean): Promise<void> {
    const folder = join(home, 'packages', 'USER');
    const id = committed ? 'killed-after-commit' : 'killed-before-commit';
    const staging = join(folder, `.python.staged-${id}`);
    const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
    try {
      await store.settingsMigrations.stageSwap({ id, owner: `${hostname()}:${home}`, folder, packageName: 'python', staging });
      await mkdir(join(staging, 'python'), { recursive: true });
      for (const file of packageFiles(2)) await writeFile(join(staging, 'python', file.name), file.data);
      if (committed) {
        const prepared = await prepareMigration(join(staging, 'python', 'settings.py'));
        await store.settingsMigrations.commit('USER', prepared.registrations, id);
      }
    } finally {
      await store.close();
    }
  }

  it.each([
    ['before its commit', false, 'discarded', 'v1'],
    ['after its commit', true, 'finished', 'v2'],
  ] as const)(
    'is settled at the next start when killed %s',
    async (_when, committed, outcome, version) => {
      const home = join(dir.path, outcome);
      const first = await startServerProcess(home);
      expect((await first.local('PUT', '/api/iop/migrate', { package: 'python', body: packageFiles(1) })).status).toBe(200);
      await first.kill('SIGTERM');
      await interrupt(home, committed);
      const second = await startServerProcess(home);
      await second.kill('SIGTERM');
      expect(second.output()).toContain(`Recovered the interrupted migration of ${join(home, 'packages', 'USER', 'python')}: ${outcome}`);
      const seen = await observe(home, join(home, 'packages', 'USER', 'python'));
      expect(singleVersion(seen, true), JSON.stringify(seen)).toBe(version);
    },
    120_000,
  );
});

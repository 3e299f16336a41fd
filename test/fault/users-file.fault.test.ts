/**
 * kill -9 at random (seeded) instants of a process changing the users file: the file always reads
 * back whole (the users of one saved change, never half a file) and nothing is left beside it.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UserDirectory } from '../../src/api/users.ts';
import { tempDir } from '../support/temp-dir.ts';
import { reportFigures, SeededRandom, sleep } from './support/fault-run.ts';

const fixture = fileURLToPath(new URL('./support/change-users-until-killed.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('kill -9 during user changes', () => {
  const dir = tempDir('conveyor-fault-users-');
  afterAll(() => dir.remove());

  it('leaves a whole users file: every saved change, at most one more, nothing half written', async () => {
    const random = new SeededRandom();
    const file = join(dir.path, 'users.json');
    const kills = 4;
    let checked = 0;
    let lost = 0;
    for (let kill = 0; kill < kills; kill++) {
      const child = spawn(process.execPath, ['--import', 'tsx', fixture, file], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
      let printed = '';
      child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // Wait for the first saved change of this round, then kill at a random instant after it.
      const before = printed.length;
      for (let waited = 0; printed.length === before && waited < 20_000; waited += 20) await sleep(20);
      await sleep(random.between(0, 400));
      child.kill('SIGKILL');
      await exited;
      const acknowledged = printed.split('\n').filter(Boolean).map(Number);
      const last = Math.max(...acknowledged);
      const users = await UserDirectory.open(file);
      const present = new Set(users.list().map((user) => user.name));
      // Every acknowledged change is there (u0..u<last>); the change in flight may or may not be.
      for (let i = 0; i <= last; i++) {
        checked++;
        if (!present.has(`u${i}`)) lost++;
      }
      expect(present.size === last + 1 || present.size === last + 2, `${present.size} users after acknowledging u${last}`).toBe(true);
      expect(await users.verify(`u${last}`, `password-${last}`)).toEqual({ name: `u${last}`, role: 'viewer' });
      expect(await readdir(dir.path)).toEqual(['users.json']);
    }
    reportFigures('users file', random, { faults: kills, checked, lost, duplicated: 0, notes: 'checked = acknowledged user changes found in the file' });
    expect(lost).toBe(0);
  }, 120_000);
});

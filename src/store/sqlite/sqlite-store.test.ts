import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStoreConformance } from '../conformance.ts';
import { newMessage } from '../conformance/harness.ts';
import { openDatabase, openSqliteStore } from './sqlite-store.ts';
import { sqliteMigrations } from './migrations.ts';

runStoreConformance('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-store-'));
  const path = join(dir, 'store.db');
  return {
    store: await openSqliteStore({ path }),
    reopen: () => openSqliteStore({ path }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('sqlite store: files and settings', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-sqlite-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('assigns ids at once with insertEager; the rows appear when committed, and later patches follow them', async () => {
    const store = await openSqliteStore({ path: join(dir, 'eager.db') });
    try {
      const [before] = await store.messages.insert([newMessage()]);
      const eager = store.messages.insertEager!([newMessage(), newMessage()]);
      expect(eager.ids).toEqual([before! + 1, before! + 2]);
      expect(await store.messages.get('USER', eager.ids[0]!)).toBeNull();
      const patched = store.messages.update([{ id: eager.ids[1]!, status: 'completed' }]);
      await eager.committed;
      await patched;
      expect((await store.messages.get('USER', eager.ids[0]!))?.sessionId).toBe(eager.ids[0]);
      expect((await store.messages.get('USER', eager.ids[1]!))?.status).toBe('completed');
    } finally {
      await store.close();
    }
    // A new opening continues after the last id: none is reused.
    const again = await openSqliteStore({ path: join(dir, 'eager.db') });
    try {
      const [next] = await again.messages.insert([newMessage()]);
      expect(next).toBeGreaterThan(3);
    } finally {
      await again.close();
    }
  });

  it('creates missing folders and opens in WAL mode with the chosen synchronous level', async () => {
    for (const [durability, level] of [
      ['full', 2],
      ['normal', 1],
    ] as const) {
      const db = openDatabase({ path: join(dir, durability, 'nested', 'store.db'), durability });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(level);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      db.close();
    }
    const store = await openSqliteStore({ path: join(dir, 'default', 'store.db') });
    await store.close();
    const db = new Database(join(dir, 'default', 'store.db'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('keeps every acknowledged insert when the writing process is killed with SIGKILL', { timeout: 120_000 }, async () => {
    for (const durability of ['full', 'normal'] as const) {
      const path = join(dir, `killed-${durability}.db`);
      const printed = await runUntilKilled(path, durability, 1500);
      expect(printed.length).toBeGreaterThanOrEqual(1500);
      const store = await openSqliteStore({ path });
      try {
        const count = await store.messages.count('USER');
        expect(count).toBeGreaterThanOrEqual(printed.length);
        for (const id of printed) expect(await store.messages.get('USER', id), `message ${id}`).not.toBeNull();
        // Ids are never reused after a crash.
        const [next] = await store.messages.insert([newMessage()]);
        expect(next).toBeGreaterThan(Math.max(...printed));
      } finally {
        await store.close();
      }
    }
  });

  it('records every migration step and applies nothing twice', async () => {
    const path = join(dir, 'store.db');
    await (await openSqliteStore({ path })).close();
    await (await openSqliteStore({ path })).close();
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    db.close();
    expect(rows).toEqual(sqliteMigrations.map((step, index) => ({ version: index + 1, name: step.name })));
  });

  it('refuses a database written by a newer Conveyor with ERR_STORE', async () => {
    const path = join(dir, 'store.db');
    await (await openSqliteStore({ path })).close();
    const db = new Database(path);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(sqliteMigrations.length + 1, 'from-the-future', Date.now());
    db.close();
    await expect(openSqliteStore({ path })).rejects.toMatchObject({
      code: 'ERR_STORE',
      message: expect.stringMatching(/schema version \d+, newer than this Conveyor knows/),
    });
  });

  it('refuses a database whose recorded steps differ from this build', async () => {
    const path = join(dir, 'store.db');
    await (await openSqliteStore({ path })).close();
    const db = new Database(path);
    db.prepare('UPDATE schema_migrations SET name = ? WHERE version = 1').run('something-else');
    db.close();
    await expect(openSqliteStore({ path })).rejects.toMatchObject({ code: 'ERR_STORE', message: expect.stringContaining('"something-else"') });
  });

  it('reports a file that is not a database with ERR_STORE and the path', async () => {
    const path = join(dir, 'garbage.db');
    await writeFile(path, 'this is not a database, just text that is long enough to fill a header page'.repeat(20));
    await expect(openSqliteStore({ path })).rejects.toMatchObject({ code: 'ERR_STORE', message: expect.stringContaining(path) });
  });

  it('refuses an unknown durability with ERR_CONFIG', async () => {
    await expect(openSqliteStore({ path: join(dir, 's.db'), durability: 'sometimes' as 'full' })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
  });
});

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'test-fixtures', 'insert-until-killed.ts');

/** Runs the writer child until it printed `atLeast` ids, kills it with SIGKILL, returns every id it printed. */
function runUntilKilled(path: string, durability: 'full' | 'normal', atLeast: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, path, durability], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ids: number[] = [];
    let pending = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (/^\d+$/.test(line)) ids.push(Number(line));
      if (!killed && ids.length >= atLeast) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (signal ${signal}): ${stderr}`));
      else resolve(ids);
    });
  });
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from './open-store.ts';

describe('openStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-open-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens SQLite at sqlitePath, creating its folder, with USER ready', async () => {
    for (const durability of ['full', 'normal', undefined] as const) {
      const store = await openStore({ sqlitePath: join(dir, `home-${durability}`, 'data', 'conveyor.db'), ...(durability ? { durability } : {}) });
      expect(store.capabilities).toEqual({ multiNode: false, notify: false });
      expect(await store.namespaces.list()).toEqual(['USER']);
      await store.close();
    }
  });

  it('asks for a store when given neither a URL nor a path', async () => {
    await expect(openStore({})).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('No store configured') });
  });

  it('refuses an unknown URL scheme without echoing its password', async () => {
    const failure = openStore({ url: 'mysql://admin:s3cret@db:3306/conveyor', sqlitePath: join(dir, 'x.db') });
    await expect(failure).rejects.toMatchObject({ code: 'ERR_CONFIG', message: 'Unsupported store URL "mysql://admin:***@db:3306/conveyor"' });
  });
});

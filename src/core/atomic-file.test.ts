import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleTemporaries, writeFileAtomic } from './atomic-file.ts';

describe('writeFileAtomic', () => {
  it('replaces the file with the new text, private by default, and leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-atomic-'));
    const file = join(dir, 'users.json');
    writeFileSync(file, 'old');
    await writeFileAtomic(file, 'new text');
    expect(readFileSync(file, 'utf8')).toBe('new text');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['users.json']);
  });

  it('leaves the old file and no temporary file when the write fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-atomic-'));
    const file = join(dir, 'users.json');
    writeFileSync(file, 'old');
    // A file in a folder that does not exist: the temporary file cannot even be made.
    await expect(writeFileAtomic(join(dir, 'missing', 'x.json'), 'new')).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['users.json']);
  });

  it('lets many writers of one file write at once: each succeeds, the file holds one whole text, no temporary file is left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-atomic-'));
    const file = join(dir, 'users.json');
    const texts = Array.from({ length: 30 }, (_, i) => `text ${i} `.repeat(1000));
    const results = await Promise.allSettled(texts.map((text) => writeFileAtomic(file, text)));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(texts).toContain(readFileSync(file, 'utf8'));
    expect(readdirSync(dir)).toEqual(['users.json']);
  });
});

describe('removeStaleTemporaries', () => {
  it("removes a killed writer's temporary file and keeps a live writer's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-atomic-'));
    const file = join(dir, 'users.json');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(dir, `users.json.${dead}.tmp`), 'half');
    writeFileSync(join(dir, `users.json.${dead}.0123456789ab.tmp`), 'half');
    writeFileSync(join(dir, `users.json.${process.pid}.tmp`), 'being written');
    writeFileSync(join(dir, `users.json.${process.pid}.ba9876543210.tmp`), 'being written');
    writeFileSync(join(dir, 'users.json.bak'), 'not ours');
    writeFileSync(join(dir, `users.json.${dead}.notours.tmp`), 'not ours');
    expect((await removeStaleTemporaries(file)).sort()).toEqual([`users.json.${dead}.0123456789ab.tmp`, `users.json.${dead}.tmp`].sort());
    expect(readdirSync(dir).sort()).toEqual(
      ['users.json.bak', `users.json.${dead}.notours.tmp`, `users.json.${process.pid}.tmp`, `users.json.${process.pid}.ba9876543210.tmp`].sort(),
    );
    expect(await removeStaleTemporaries(join(dir, 'none', 'x'))).toEqual([]);
  });
});

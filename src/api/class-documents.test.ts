import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClassDocumentStore } from './class-documents.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conveyor-documents-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const noCompiler = async (): Promise<never> => {
  throw new Error('not compiled in these tests');
};

function store(): ClassDocumentStore {
  return new ClassDocumentStore((namespace) => join(dir, namespace), noCompiler);
}

/** A pid no process has any more: that of a child that has exited. */
function deadPid(): string {
  return spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
}

describe('ClassDocumentStore', () => {
  it('stores a document that many uploads replace at the same time: each succeeds, one whole text is kept, no temporary file is left', async () => {
    const documents = store();
    const texts = Array.from({ length: 12 }, (_, i) => `Class A.B Extends %RegisteredObject\n{\n// upload ${i}\n}\n`.repeat(200));
    const results = await Promise.allSettled(texts.map((text) => documents.put('USER', 'A.B.cls', text)));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(texts).toContain(await documents.get('USER', 'A.B.cls'));
    expect(await readdir(join(dir, 'USER'))).toEqual(['A.B.cls']);
  });

  it('removes the temporary files a killed upload left, on first use of the namespace, and keeps the documents', async () => {
    const folder = join(dir, 'USER');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'A.B.cls'), 'whole');
    const dead = deadPid();
    await writeFile(join(folder, `A.B.cls.${dead}.0123456789ab.tmp`), 'half');
    await writeFile(join(folder, `C.D.cls.${dead}.tmp`), 'half');
    // A live writer's file is being written: it stays.
    await writeFile(join(folder, `E.F.cls.${process.pid}.ba9876543210.tmp`), 'being written');
    expect(await store().get('USER', 'A.B.cls')).toBe('whole');
    expect((await readdir(folder)).sort()).toEqual(['A.B.cls', `E.F.cls.${process.pid}.ba9876543210.tmp`]);
  });

  it('refuses a document named like a temporary file, and writes nothing', async () => {
    await expect(store().put('USER', 'A.B.cls.123.tmp', 'x')).rejects.toThrow(/Invalid document name "A\.B\.cls\.123\.tmp"/);
    await expect(store().put('USER', 'A.4242.0123456789ab.tmp', 'x')).rejects.toThrow(/Invalid document name/);
    await expect(readdir(join(dir, 'USER'))).rejects.toThrow(/ENOENT/);
  });

  it('writes the document private (0600) and reads it back', async () => {
    const documents = store();
    expect((await documents.put('USER', 'A.B.cls', 'one')).created).toBe(true);
    expect((await documents.put('USER', 'A.B.cls', 'two')).created).toBe(false);
    expect(await readFile(join(dir, 'USER', 'A.B.cls'), 'utf8')).toBe('two');
    expect((await stat(join(dir, 'USER', 'A.B.cls'))).mode & 0o777).toBe(0o600);
  });
});

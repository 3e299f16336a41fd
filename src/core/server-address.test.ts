import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addressFile, readServerAddress, recordServerAddress } from './server-address.ts';

const home = mkdtempSync(join(tmpdir(), 'server-address-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('server.url', () => {
  it('records the URL with this pid, reads it back, and the cleanup removes it', async () => {
    const remove = await recordServerAddress(home, 'http://127.0.0.1:40123');
    expect(readServerAddress(home)).toEqual({ url: 'http://127.0.0.1:40123', pid: process.pid });
    remove();
    expect(readServerAddress(home)).toBeNull();
  });

  it('a record left by a process that is gone, or that is not a record, reads as none', () => {
    writeFileSync(addressFile(home), 'http://127.0.0.1:40123\npid 99999999\n');
    expect(readServerAddress(home)).toBeNull();
    writeFileSync(addressFile(home), 'garbage');
    expect(readServerAddress(home)).toBeNull();
  });

  it("the cleanup leaves another server's record alone", async () => {
    const remove = await recordServerAddress(home, 'http://127.0.0.1:40123');
    // Another server (here: this test's parent) took the home over meanwhile.
    writeFileSync(addressFile(home), `http://127.0.0.1:40999\npid ${process.ppid}\n`);
    remove();
    expect(readServerAddress(home)).toEqual({ url: 'http://127.0.0.1:40999', pid: process.ppid });
  });
});

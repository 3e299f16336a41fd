/**
 * `<home>/server.url`: where the home's running server listens on TCP (`http(s)://host:port`). A server
 * a local-mode `cli` starts takes a free port (never a fixed one, so homes never clash over 52773);
 * this file is how people, `conveyor doctor` and the `cli` learn which. The file names the server's
 * pid too, so a file left behind by a killed server is recognised as stale.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.ts';
import { processExists } from './process-exists.ts';

export const addressFileName = 'server.url';

export interface ServerAddress {
  url: string;
  pid: number;
}

export function addressFile(home: string): string {
  return join(home, addressFileName);
}

/** Records the URL of this process's server; the returned function removes the record (only ours). */
export async function recordServerAddress(home: string, url: string): Promise<() => void> {
  const file = addressFile(home);
  await writeFileAtomic(file, `${url}\npid ${process.pid}\n`);
  return () => {
    if (readServerAddress(home)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** The live server's address, or null when none is recorded or its process is gone. */
export function readServerAddress(home: string): ServerAddress | null {
  let text: string;
  try {
    text = readFileSync(addressFile(home), 'utf8');
  } catch {
    return null;
  }
  const match = /^(\S+)\npid (\d+)\n?$/.exec(text);
  if (!match) return null;
  const pid = Number(match[2]);
  return processExists(pid) ? { url: match[1]!, pid } : null;
}

/**
 * The checks of `conveyor doctor` beyond the home's permissions and TLS: Node, python3, the home
 * (can it be created and written, who holds its lock, free space), the store, the TCP port and the
 * portal build. Each returns findings whose text says what to do; none changes anything.
 */
import { execFile } from 'node:child_process';
import { constants, existsSync, readFileSync } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { errorText } from '../core/errors.ts';
import { processExists } from '../core/process-exists.ts';
import { readServerAddress } from '../core/server-address.ts';
import type { Finding } from './doctor-finding.ts';

export const minimumNode = [20, 19] as const;
export const minimumPython = [3, 9] as const;
/** Below this the store's writes fail soon: a problem. Below `lowSpaceBytes`: a warning. */
export const criticalSpaceBytes = 100 * 1024 * 1024;
export const lowSpaceBytes = 1024 * 1024 * 1024;

function atLeast(version: readonly number[], minimum: readonly number[]): boolean {
  for (let i = 0; i < minimum.length; i++) {
    const part = version[i] ?? 0;
    if (part !== minimum[i]) return part > minimum[i]!;
  }
  return true;
}

function versionParts(text: string): number[] | null {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return match ? match.slice(1).map((part) => Number(part ?? 0)) : null;
}

export function nodeFinding(version: string = process.versions.node): Finding {
  const parts = versionParts(version);
  if (parts && atLeast(parts, minimumNode)) return { verdict: 'ok', text: `Node ${version}` };
  return {
    verdict: 'problem',
    text: `Node ${version} is too old: Conveyor needs Node ${minimumNode.join('.')} or later (install it from nodejs.org or with nvm: nvm install 20)`,
  };
}

/** The workers' interpreter: it must run and be Python 3.9 or later. */
export function pythonFinding(python: string): Promise<Finding> {
  const fix = 'set python in conveyor.yaml, CONVEYOR_PYTHON or --python';
  return new Promise((resolve) => {
    execFile(python, ['--version'], { timeout: 10_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim();
      if (error) {
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        resolve({
          verdict: 'problem',
          text: missing
            ? `Python not found: ${python} is not installed or not on PATH (install python3 ≥ ${minimumPython.join('.')}, e.g. apt-get install python3, or ${fix})`
            : `The Python interpreter ${python} does not run: ${errorText(error)} (${fix})`,
        });
        return;
      }
      const parts = versionParts(output);
      if (!parts || !/^Python /.test(output)) {
        resolve({ verdict: 'problem', text: `${python} --version printed '${output}', not a Python version (${fix})` });
      } else if (!atLeast(parts, minimumPython)) {
        resolve({ verdict: 'problem', text: `Workers run ${python} (${output}): Conveyor needs Python ${minimumPython.join('.')} or later (${fix})` });
      } else resolve({ verdict: 'ok', text: `Workers run ${python} (${output})` });
    });
  });
}

/** The home, or the folder it would be created in, must be writable by this user. */
export async function writableFinding(home: string): Promise<Finding> {
  let folder = home;
  // The nearest folder that exists: a first start creates the rest.
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    if (!(await stat(folder)).isDirectory()) {
      return { verdict: 'problem', text: `The home ${home} cannot be created: ${folder} is not a folder (choose another home with --home or CONVEYOR_HOME)` };
    }
    await access(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    return {
      verdict: 'problem',
      text: `This user cannot write ${folder}: ${errorText(error)} (run as the home's owner, fix it with chown/chmod 700, or choose another home)`,
    };
  }
  return { verdict: 'ok', text: folder === home ? `The home ${home} is writable` : `${folder} is writable: the first start can create the home` };
}

/**
 * `<home>/server.pid`: a live server (say where it listens), a lock left by a server that died (the
 * next start takes it over), or a pid that lives on but answers nowhere (a hung server, or the pid
 * now belongs to another program).
 */
export function lockFinding(home: string): Finding {
  const file = join(home, 'server.pid');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { verdict: 'ok', text: 'No server runs on this home (no lock)' };
  }
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) {
    return { verdict: 'warning', text: `The lock ${file} holds '${text.slice(0, 20)}', not a pid: delete it (the next start writes a new one)` };
  }
  if (!processExists(pid)) return { verdict: 'ok', text: `The lock ${file} was left by a server that ended (pid ${pid}); the next start takes it over` };
  const address = readServerAddress(home);
  if (address?.pid === pid)
    return { verdict: 'ok', text: `A Conveyor server runs on this home (pid ${pid}) at ${address.url}; stop it with: conveyor stop --home ${home}` };
  if (existsSync(join(home, 'conveyor.sock'))) {
    return { verdict: 'ok', text: `A Conveyor server runs on this home (pid ${pid}); stop it with: conveyor stop --home ${home}` };
  }
  return {
    verdict: 'warning',
    text: `The home is locked by pid ${pid}, which runs but serves no socket: a server still starting or hung (conveyor stop --home ${home}), or, if pid ${pid} is not Conveyor, delete ${file}`,
  };
}

export async function freeSpaceFinding(home: string, available?: number): Promise<Finding> {
  let folder = home;
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  let bytes = available;
  if (bytes === undefined) {
    try {
      const info = await statfs(folder);
      bytes = info.bavail * info.bsize;
    } catch (error) {
      return { verdict: 'warning', text: `Cannot read the free space of ${folder}: ${errorText(error)}` };
    }
  }
  const size = `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  if (bytes < criticalSpaceBytes) {
    return { verdict: 'problem', text: `Only ${size} free on the home's disk (${folder}): the store's writes will fail; free some space or move the home` };
  }
  if (bytes < lowSpaceBytes)
    return { verdict: 'warning', text: `${size} free on the home's disk (${folder}): messages and the event log grow; free some space soon` };
  return { verdict: 'ok', text: `${size} free on the home's disk` };
}

/** The embedded SQLite store (its binding loads, the file reads back) or the PostgreSQL server (it answers). */
export async function storeFinding(home: string, store: string): Promise<Finding> {
  if (store !== '') return postgresFinding(store);
  let Database: typeof import('better-sqlite3');
  try {
    Database = (await import('better-sqlite3')).default;
  } catch (error) {
    return {
      verdict: 'problem',
      text: `The SQLite binding better-sqlite3 does not load: ${errorText(error).split('\n')[0]} (no prebuilt binary fits this machine: install python3, make and a C++ compiler, e.g. apt-get install build-essential, then npm rebuild better-sqlite3)`,
    };
  }
  const file = join(home, 'conveyor.db');
  if (!existsSync(file)) return { verdict: 'ok', text: 'SQLite store: none yet (the first start creates conveyor.db)' };
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5_000 });
    try {
      const result = db.pragma('quick_check', { simple: true });
      if (result !== 'ok') return { verdict: 'problem', text: `The SQLite store ${file} is damaged (${String(result)}): restore it from a backup` };
    } finally {
      db.close();
    }
  } catch (error) {
    return {
      verdict: 'problem',
      text: `The SQLite store ${file} cannot be read: ${errorText(error)} (not a Conveyor database, or damaged: move it aside and restore a backup)`,
    };
  }
  return { verdict: 'ok', text: `SQLite store ${file} reads back intact` };
}

async function postgresFinding(url: string): Promise<Finding> {
  const shown = redactPassword(url);
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return { verdict: 'ok', text: `PostgreSQL store ${shown} answers` };
  } catch (error) {
    return {
      verdict: 'problem',
      text: `The PostgreSQL store ${shown} does not answer: ${errorText(error)} (is the server running, and are the URL, user and password right?)`,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * Whether `conveyor serve` could take its TCP port. Taken by this home's own server is fine; taken by
 * something else is a warning, not a problem: the local-mode cli starts its servers on a free port.
 */
export async function portFinding(home: string, host: string, port: number): Promise<Finding> {
  const own = readServerAddress(home);
  if (own && port !== 0 && new URL(own.url).port === String(port)) return { verdict: 'ok', text: `Port ${port} is this home's server's` };
  if (port === 0) return { verdict: 'ok', text: 'The server takes a free TCP port (port 0)' };
  const outcome = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen(port, host, () => probe.close(() => resolve(null)));
  });
  if (outcome === null) return { verdict: 'ok', text: `Port ${port} on ${host} is free` };
  const ownerHint = `see who holds it: ss -ltnp 'sport = :${port}'`;
  if (outcome.code === 'EADDRINUSE') {
    return {
      verdict: 'warning',
      text: `Port ${port} on ${host} is in use (${ownerHint}): conveyor serve would fail there; pick another with --port, CONVEYOR_PORT or port: in conveyor.yaml (the local-mode cli is not affected: it starts servers on a free port)`,
    };
  }
  if (outcome.code === 'EACCES')
    return { verdict: 'problem', text: `Port ${port} needs privileges on this machine: use a port above 1023 (--port, CONVEYOR_PORT)` };
  return { verdict: 'problem', text: `Cannot listen on ${host}:${port}: ${errorText(outcome)} (check host: and port: in conveyor.yaml)` };
}

export function portalFinding(portalDir: string): Finding {
  if (existsSync(join(portalDir, 'index.html'))) return { verdict: 'ok', text: `Portal build found in ${portalDir}` };
  return {
    verdict: 'warning',
    text: `The portal is not built (no ${join(portalDir, 'index.html')}): /portal/ answers 404 until you run npm run build (the API and the cli work without it)`,
  };
}

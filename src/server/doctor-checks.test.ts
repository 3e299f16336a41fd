import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { freeSpaceFinding, lockFinding, nodeFinding, portalFinding, portFinding, pythonFinding, storeFinding, writableFinding } from './doctor-checks.ts';
import { diagnose, doctorReport } from './doctor.ts';
import { loadConfig } from './config.ts';

const folder = mkdtempSync(join(tmpdir(), 'doctor-checks-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

function freshHome(name: string): string {
  const home = join(folder, name);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

/** A fake interpreter that prints `text` for --version. */
function fakePython(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, `#!/bin/sh\necho '${text}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('nodeFinding', () => {
  it('Node older than 20.19 is a problem that says what to install', () => {
    expect(nodeFinding('20.10.0')).toEqual({
      verdict: 'problem',
      text: expect.stringContaining('Node 20.10.0 is too old: Conveyor needs Node 20.19 or later'),
    });
    expect(nodeFinding('18.20.4').verdict).toBe('problem');
    expect(nodeFinding('20.19.0').verdict).toBe('ok');
    expect(nodeFinding('22.3.1').verdict).toBe('ok');
  });
});

describe('pythonFinding', () => {
  it('an interpreter that is not installed: python not found, and how to fix it', async () => {
    const finding = await pythonFinding(join(folder, 'no-such-python3'));
    expect(finding.verdict).toBe('problem');
    expect(finding.text).toMatch(/^Python not found: .*no-such-python3 is not installed or not on PATH \(install python3 ≥ 3\.9/);
    expect(finding.text).toContain('CONVEYOR_PYTHON');
  });

  it('Python older than 3.9 is a problem; something that is not Python too', async () => {
    expect(await pythonFinding(fakePython('old-python', 'Python 3.8.10'))).toEqual({
      verdict: 'problem',
      text: expect.stringContaining('Conveyor needs Python 3.9 or later'),
    });
    expect((await pythonFinding(fakePython('not-python', 'hello'))).text).toContain("printed 'hello', not a Python version");
    expect((await pythonFinding(fakePython('good-python', 'Python 3.9.0'))).verdict).toBe('ok');
  });
});

describe('writableFinding', () => {
  it('a home that cannot be created (a file stands in its path) is a problem', async () => {
    const file = join(folder, 'a-file');
    writeFileSync(file, '');
    const finding = await writableFinding(join(file, 'home'));
    expect(finding).toEqual({ verdict: 'problem', text: expect.stringContaining(`${file} is not a folder`) });
  });

  it.skipIf(process.getuid?.() === 0)('a home this user cannot write is a problem (skipped as root: root writes everywhere)', async () => {
    const home = freshHome('read-only');
    chmodSync(home, 0o500);
    try {
      expect((await writableFinding(home)).text).toContain(`This user cannot write ${home}`);
    } finally {
      chmodSync(home, 0o700);
    }
  });

  it('a writable home, or a writable folder to create it in, is ok', async () => {
    expect((await writableFinding(freshHome('writable'))).verdict).toBe('ok');
    expect((await writableFinding(join(folder, 'not-yet', 'home'))).text).toBe(`${folder} is writable: the first start can create the home`);
  });
});

describe('lockFinding', () => {
  it('no lock, and a lock left by a server that ended, are ok', () => {
    const home = freshHome('lock-stale');
    expect(lockFinding(home).text).toBe('No server runs on this home (no lock)');
    // A pid that cannot be alive: larger than any Linux pid_max.
    writeFileSync(join(home, 'server.pid'), '99999999');
    expect(lockFinding(home)).toEqual({ verdict: 'ok', text: expect.stringContaining('was left by a server that ended (pid 99999999)') });
  });

  it('a lock that is not a pid is a warning saying to delete it', () => {
    const home = freshHome('lock-garbage');
    writeFileSync(join(home, 'server.pid'), 'garbage');
    expect(lockFinding(home)).toEqual({ verdict: 'warning', text: expect.stringContaining("holds 'garbage', not a pid: delete it") });
  });

  it('a lock held by a live process that serves no socket is a warning naming the pid and what to do', () => {
    const home = freshHome('lock-held');
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(holder);
    writeFileSync(join(home, 'server.pid'), String(holder.pid));
    const finding = lockFinding(home);
    expect(finding.verdict).toBe('warning');
    expect(finding.text).toContain(`The home is locked by pid ${holder.pid}, which runs but serves no socket`);
    expect(finding.text).toContain(`conveyor stop --home ${home}`);
  });

  it('a live server is reported with its address and how to stop it', () => {
    const home = freshHome('lock-live');
    writeFileSync(join(home, 'server.pid'), String(process.pid));
    writeFileSync(join(home, 'server.url'), `http://127.0.0.1:41234\npid ${process.pid}\n`);
    expect(lockFinding(home)).toEqual({
      verdict: 'ok',
      text: `A Conveyor server runs on this home (pid ${process.pid}) at http://127.0.0.1:41234; stop it with: conveyor stop --home ${home}`,
    });
  });
});

describe('freeSpaceFinding', () => {
  it('under 100 MB free is a problem, under 1 GB a warning', async () => {
    const home = freshHome('space');
    expect(await freeSpaceFinding(home, 50 * 1024 * 1024)).toEqual({ verdict: 'problem', text: expect.stringContaining("Only 50 MB free on the home's disk") });
    expect(await freeSpaceFinding(home, 500 * 1024 * 1024)).toEqual({ verdict: 'warning', text: expect.stringContaining('500 MB free') });
    expect((await freeSpaceFinding(home, 5 * 1024 * 1024 * 1024)).verdict).toBe('ok');
  });
});

describe('storeFinding', () => {
  it('a conveyor.db that is not a database is a problem that says to restore a backup', async () => {
    const home = freshHome('store-garbage');
    writeFileSync(join(home, 'conveyor.db'), 'this is not SQLite '.repeat(500));
    const finding = await storeFinding(home, '');
    expect(finding.verdict).toBe('problem');
    expect(finding.text).toContain(`The SQLite store ${join(home, 'conveyor.db')} cannot be read`);
    expect(finding.text).toContain('restore a backup');
  });

  it('a readable database, or none yet, is ok', async () => {
    const home = freshHome('store-good');
    expect((await storeFinding(home, '')).text).toContain('none yet');
    const db = new Database(join(home, 'conveyor.db'));
    db.exec('create table t (x integer)');
    db.close();
    expect((await storeFinding(home, '')).verdict).toBe('ok');
  });

  it('a PostgreSQL store that does not answer is a problem; the password is not shown', async () => {
    const finding = await storeFinding(folder, 'postgres://conveyor:s3cret@127.0.0.1:1/nothing');
    expect(finding.verdict).toBe('problem');
    expect(finding.text).toContain('The PostgreSQL store postgres://conveyor:***@127.0.0.1:1/nothing does not answer');
    expect(finding.text).not.toContain('s3cret');
  });
});

describe('portFinding', () => {
  it('a port something else holds is a warning that says how to pick another', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const finding = await portFinding(freshHome('port'), '127.0.0.1', port);
      expect(finding.verdict).toBe('warning');
      expect(finding.text).toContain(`Port ${port} on 127.0.0.1 is in use`);
      expect(finding.text).toContain('--port, CONVEYOR_PORT or port: in conveyor.yaml');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a free port, and port 0, are ok', async () => {
    expect((await portFinding(freshHome('port-free'), '127.0.0.1', 0)).verdict).toBe('ok');
  });
});

describe('portalFinding', () => {
  it('a missing portal build is a warning that says to run npm run build', () => {
    expect(portalFinding(join(folder, 'no-portal'))).toEqual({ verdict: 'warning', text: expect.stringContaining('run npm run build') });
    const built = freshHome('portal');
    writeFileSync(join(built, 'index.html'), '<html></html>');
    expect(portalFinding(built).verdict).toBe('ok');
  });
});

describe('diagnose', () => {
  it('runs every check and fails (exit 1) on a problem', async () => {
    const home = freshHome('diagnose');
    const config = loadConfig({ home, python: join(folder, 'no-such-python3'), port: 0 });
    const report = doctorReport(await diagnose(config, { portalDir: join(folder, 'no-portal') }));
    expect(report.exitCode).toBe(1);
    expect(report.lines.some((line) => line.startsWith('problem Python not found'))).toBe(true);
    expect(report.lines.some((line) => line.startsWith('warning The portal is not built'))).toBe(true);
    expect(report.lines.some((line) => line.startsWith('ok      Node '))).toBe(true);
    expect(report.lines.at(-1)).toBe('1 problem(s), 1 warning(s).');
  });
});

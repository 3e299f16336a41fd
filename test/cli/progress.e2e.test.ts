/**
 * Progress of the long commands (`-s`, `-S`, `-r`, `-k`, `-u`, `-m`) with the real cli and server in
 * local mode: plain lines on stderr when not on a terminal, a live line on a (pseudo-)terminal, stdout
 * unchanged either way; Ctrl+C during a start cancels it and says the state it left.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cliPath, repositoryRoot, runCli, startCli, stopHomeServer, temporaryFolder, waitForOutput, type CliResult } from './support/cli-harness.ts';

const home = join(temporaryFolder('cli-progress-'), 'home');
const fixture = join(repositoryRoot, 'test', 'cli', 'fixtures', 'progress');
const env = cleanEnv({ CONVEYOR_HOME: home });
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra }, cwd: fixture });

/** `script` (util-linux) runs the cli on a pseudo-terminal: stdout and stderr are both a TTY there. */
const scriptMissing = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
})();

function onTerminal(args: string[]): Promise<CliResult> {
  const command = [process.execPath, cliPath, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: fixture, env: { ...env, COLUMNS: '120' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr: '' })));
}

const stderrLines = (result: CliResult) => result.stderr.trimEnd().split('\n');

beforeAll(async () => {
  // The first command starts the home's server; the migration registers both productions.
  const migrated = await cli(['-m', 'settings.py']);
  expect(migrated.code, migrated.stderr).toBe(0);
});

afterAll(async () => {
  await stopHomeServer(home);
  rmSync(join(home, '..'), { recursive: true, force: true });
});

describe('progress when stdout is not a terminal: plain lines on stderr, stdout as before', () => {
  it('-s -D prints each item as it starts', async () => {
    const result = await cli(['-s', 'Progress.Production', '-D']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Production Progress.Production started\n');
    expect(stderrLines(result).sort()).toEqual(['Alpha.Operation started', 'Beta.Operation started']);
  });

  it('-u and -k print their result line; -r prints each item stopping and starting again', async () => {
    expect(await cli(['-u'])).toEqual({ code: 0, stdout: 'Production Progress.Production updated\n', stderr: '' });
    const restarted = await cli(['-r']);
    expect(restarted.stdout).toBe('Production Progress.Production restarted\n');
    expect(stderrLines(restarted).sort()).toEqual(['Alpha.Operation started', 'Alpha.Operation stopped', 'Beta.Operation started', 'Beta.Operation stopped']);
    // A kill ends every worker at once: there is no item-by-item step to show.
    expect(await cli(['-k'])).toEqual({ code: 0, stdout: 'Production Progress.Production killed\n', stderr: '' });
  });

  it('-S prints each item as it stops', async () => {
    expect((await cli(['-s', 'Progress.Production', '-D'])).code).toBe(0);
    const result = await cli(['-S']);
    expect(result.stdout).toBe('Production Progress.Production stopped\n');
    expect(stderrLines(result).sort()).toEqual(['Alpha.Operation stopped', 'Beta.Operation stopped']);
  });

  it('-m adds nothing (its migration is one step); CONVEYOR_PROGRESS=off silences the item lines', async () => {
    const migrated = await cli(['-m', 'settings.py']);
    expect(migrated.stderr).toBe('');
    expect(migrated.stdout).toContain('Registered production Slow.Production');
    expect(await cli(['-s', 'Progress.Production', '-D'], { CONVEYOR_PROGRESS: 'off' })).toEqual({
      code: 0,
      stdout: 'Production Progress.Production started\n',
      stderr: '',
    });
    expect(await cli(['-S'], { CONVEYOR_PROGRESS: 'off' })).toEqual({ code: 0, stdout: 'Production Progress.Production stopped\n', stderr: '' });
  });
});

describe.skipIf(scriptMissing)('progress on a terminal (script(1) gives the cli a pseudo-terminal; skipped when script is not installed)', () => {
  it('-s -D draws a live line with the bar of items, clears it, then prints the result line', async () => {
    const result = await onTerminal(['-s', 'Progress.Production', '-D']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Starting Progress.Production');
    expect(result.stdout).toMatch(/\] [012]\/2/);
    // Every drawing is a redraw of one line (carriage return, erase line); the result line follows the last erase.
    expect(result.stdout).toContain('\r\x1b[2KProduction Progress.Production started');
    expect(result.stdout).not.toMatch(/^Alpha\.Operation started/m);
  });

  it('-S and -r name what they do on the live line', async () => {
    const restarted = await onTerminal(['-r']);
    expect(restarted.stdout).toContain('Restarting Progress.Production');
    expect(restarted.stdout).toContain('Production Progress.Production restarted');
    const stopped = await onTerminal(['-S']);
    expect(stopped.stdout).toContain('Stopping Progress.Production');
    expect(stopped.stdout).toContain('\r\x1b[2KProduction Progress.Production stopped');
  });

  it('-m shows a spinner while the server migrates', async () => {
    const result = await onTerminal(['-m', 'settings.py']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Migrating ${join(fixture, 'settings.py')}`);
    expect(result.stdout).toContain('Registered production Progress.Production');
  });

  it('attached -s: log lines print above the live line; Ctrl+C typed on the terminal during the start cancels it', async () => {
    const command = [process.execPath, cliPath, '-s', 'Slow.Production'].map((part) => `'${part}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: fixture, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    await waitForOutput(() => output, 'slow operation initialising');
    // ^C on the pseudo-terminal: its line discipline sends SIGINT to the cli, as a keyboard does.
    child.stdin.write('\x03');
    expect(await closed).toBe(130);
    expect(output).toContain('Starting Slow.Production');
    expect(output).toMatch(/\r\x1b\[2K.*\[Alpha\.Operation\] .*INFO.*: Item Alpha\.Operation started/);
    expect(output).toContain('Slow.Operation failed to start');
    expect(output).toContain('\r\x1b[2KThe start of Slow.Production was cancelled; production Slow.Production is stopped');
  });

  it('CONVEYOR_PROGRESS=live forces the live line without a terminal, on stderr only', async () => {
    const result = await cli(['-s', 'Progress.Production', '-D'], { CONVEYOR_PROGRESS: 'live' });
    expect(result.stdout).toBe('Production Progress.Production started\n');
    expect(result.stderr).toContain('\r\x1b[2K');
    expect(result.stderr).toContain('Starting Progress.Production');
    expect((await cli(['-S'])).code).toBe(0);
  });
});

describe('Ctrl+C during a start', () => {
  it('-s -D: the start is cancelled, the production is left stopped, and the cli says so (exit 130)', async () => {
    const running = startCli(['-s', 'Slow.Production', '-D'], { env, cwd: fixture });
    let stderr = '';
    running.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The quick item is up; the slow one is in its on_init (120 s).
    await waitForOutput(() => stderr, 'Alpha.Operation started');
    running.child.kill('SIGINT');
    const result = await running.result;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Ctrl+C: cancelling the start of Slow.Production');
    expect(stderrLines(result).at(-1)).toBe('The start of Slow.Production was cancelled; production Slow.Production is stopped');
    expect(JSON.parse((await cli(['-x'])).stdout)).toEqual({ Production: 'Slow.Production', Status: 'stopped' });
  });

  it('attached -s: the log shows the start as it happens; Ctrl+C before it ends cancels it the same way', async () => {
    const running = startCli(['-s', 'Slow.Production'], { env, cwd: fixture });
    let stdout = '';
    running.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitForOutput(() => stdout, 'slow operation initialising');
    running.child.kill('SIGINT');
    const result = await running.result;
    expect(result.code).toBe(130);
    expect(result.stderr).not.toContain("Production 'Slow.Production' started");
    expect(stderrLines(result).at(-1)).toBe('The start of Slow.Production was cancelled; production Slow.Production is stopped');
    expect(JSON.parse((await cli(['-x'])).stdout).Status).toBe('stopped');
  });
});

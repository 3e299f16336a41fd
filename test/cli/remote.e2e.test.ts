/**
 * The real `cli` executable in remote mode against a real Conveyor server (real SQLite home, real
 * python3 workers): every action and its output, the exit codes and the error texts, `-s` attached
 * ended by Ctrl+C, and a remote migrate + test of a Python package.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminPassword,
  cleanEnv,
  cliPath,
  echoPackageCopy,
  repositoryRoot,
  runCli,
  startCli,
  startServer,
  temporaryFolder,
  waitForOutput,
  type RunningServer,
} from './support/cli-harness.ts';

let server: RunningServer;
let env: Record<string, string>;
const packageFolder = echoPackageCopy();
const work = temporaryFolder('cli-remote-work-');

beforeAll(async () => {
  server = await startServer(temporaryFolder('cli-remote-home-'));
  env = cleanEnv({ CLI_URL: server.url, CLI_USERNAME: 'admin', CLI_PASSWORD: adminPassword });
  // What a remote migrate must leave behind: caches, virtual environments, VCS folders.
  mkdirSync(join(packageFolder, '__pycache__'));
  writeFileSync(join(packageFolder, '__pycache__', 'bo.cpython-311.pyc'), 'junk');
  mkdirSync(join(packageFolder, '.venv'));
  writeFileSync(join(packageFolder, '.venv', 'pyvenv.cfg'), 'home = /usr/bin');
  mkdirSync(join(packageFolder, '.git'));
  writeFileSync(join(packageFolder, '.git', 'HEAD'), 'ref: refs/heads/main');
});

afterAll(async () => {
  await server?.stop();
  for (const folder of [server?.home, packageFolder, work]) if (folder) rmSync(folder, { recursive: true, force: true });
});

const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra }, cwd: work });

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const timePattern = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/;
const logLinePattern = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \[[^\]]*\] (ASSERT|ERROR|WARNING|INFO|TRACE|ALERT|UNKNOWN): .*$/;

describe('cli in remote mode', () => {
  it('-v prints the package version', async () => {
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
    expect(await cli(['-v'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('-h and no action show usage, the default production, the namespace and Mode: REMOTE (<url>)', async () => {
    for (const args of [['-h'], [], ['--help']]) {
      const result = await cli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^usage: cli /);
      expect(result.stdout).toContain('-s, --start [NAME]');
      expect(result.stdout.trimEnd().split('\n').slice(-3)).toEqual([
        'Default production: Python.Production',
        'Namespace: USER',
        `Mode: REMOTE (${server.url})`,
      ]);
    }
  });

  it('-x on a fresh namespace prints {"Production", "Status"} with 4-space indentation', async () => {
    expect(await cli(['-x'])).toEqual({ code: 0, stdout: '{\n    "Production": "",\n    "Status": "stopped"\n}\n', stderr: '' });
  });

  it('-m uploads the package folder (no caches, venvs or .git) and migrates it', async () => {
    const result = await cli(['-m', join(packageFolder, 'settings.py')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Migrated ${join(packageFolder, 'settings.py')}`);
    expect(result.stderr).toContain('Uploading 4 files');
    const written = join(server.home, 'packages', 'USER', 'python');
    expect(existsSync(join(written, 'data', 'greeting.txt'))).toBe(true);
    for (const left of ['__pycache__', '.venv', '.git']) expect(existsSync(join(written, left))).toBe(false);
  });

  it('-l lists the productions with AutoStart as a number', async () => {
    const result = await cli(['-l']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ 'Echo.Production': { Status: 'Stopped', LastStartTime: '', LastStopTime: '', AutoStart: 0 } });
    expect(result.stdout).toContain('\n    "Echo.Production": {\n        "Status"');
  });

  it('-d NAME sets the default production and -d prints it', async () => {
    expect(await cli(['-d', 'Echo.Production'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await cli(['-d'])).toEqual({ code: 0, stdout: 'default production: Echo.Production\n', stderr: '' });
    expect((await cli(['-h'])).stdout).toContain('Default production: Echo.Production');
  });

  it('-e prints the {"Production": {...}} form, every value a string', async () => {
    const result = await cli(['-e']);
    expect(result.code).toBe(0);
    const exported = JSON.parse(result.stdout);
    expect(exported).toMatchObject({
      Production: {
        '@Name': 'Echo.Production',
        '@TestingEnabled': 'true',
        '@LogGeneralTraceEvents': 'false',
        Description: 'Echo test production',
        ActorPoolSize: '1',
      },
    });
    expect(exported.Production.Item[0]).toMatchObject({
      '@Name': 'Echo.Operation',
      '@ClassName': 'Echo.Operation',
      '@PoolSize': '1',
      '@Enabled': 'true',
      '@Comment': 'upper-cases',
      Setting: [{ '@Target': 'Host', '@Name': 'greeting', '#text': 'hello' }],
    });
    expect(JSON.parse((await cli(['-e', 'Echo.Production'])).stdout)).toEqual(exported);
  });

  it('-s NAME -D starts and returns, each item on stderr as it starts; -x and -l show it running', async () => {
    expect(await cli(['-s', 'Echo.Production', '-D'])).toEqual({ code: 0, stdout: 'Production Echo.Production started\n', stderr: 'Echo.Operation started\n' });
    expect(JSON.parse((await cli(['-x'])).stdout)).toEqual({ Production: 'Echo.Production', Status: 'running' });
    const listed = JSON.parse((await cli(['-l'])).stdout)['Echo.Production'];
    expect(listed.Status).toBe('Running');
    expect(listed.LastStartTime).toMatch(timePattern);
  });

  it('-t sends a test message and prints classname, body: and the pretty JSON', async () => {
    const result = await cli(['-t', 'Echo.Operation', '-C', 'message.EchoRequest', '-B', '{"text": "hi"}']);
    expect(result).toEqual({ code: 0, stdout: 'classname: message.EchoResponse\nbody:\n{\n    "text": "HI",\n    "length": 2\n}\n', stderr: '' });
  });

  it('-t reads -B @file', async () => {
    writeFileSync(join(work, 'body.json'), '{"text": "from a file"}');
    const result = await cli(['-t', 'Echo.Operation', '-C', 'message.EchoRequest', '-B', '@body.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"text": "FROM A FILE"');
  });

  it('-L N prints the last N log lines, oldest first, plain when not on a terminal', async () => {
    const result = await cli(['-L', '3']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(logLinePattern);
    expect(lines[2]).toContain('[Echo.Operation] INFO: echoing from a file');
    expect(result.stdout).not.toContain('\x1b[');
  });

  it('colours log lines when forced, and NO_COLOR wins', async () => {
    expect((await cli(['-L', '1'], { FORCE_COLOR: '1' })).stdout).toContain('\x1b[36mINFO\x1b[0m');
    expect((await cli(['-L', '1'], { FORCE_COLOR: '1', NO_COLOR: '1' })).stdout).not.toContain('\x1b[');
  });

  it('-u, -r, -S and -k act on the running production and say so (the items they stop and start on stderr)', async () => {
    expect(await cli(['-u'])).toEqual({ code: 0, stdout: 'Production Echo.Production updated\n', stderr: '' });
    expect(await cli(['-r'])).toEqual({
      code: 0,
      stdout: 'Production Echo.Production restarted\n',
      stderr: 'Echo.Operation stopped\nEcho.Operation started\n',
    });
    expect(await cli(['-S'])).toEqual({ code: 0, stdout: 'Production Echo.Production stopped\n', stderr: 'Echo.Operation stopped\n' });
    expect(JSON.parse((await cli(['-x'])).stdout).Status).toBe('stopped');
    await cli(['-s', '-D']);
    expect(await cli(['-k'])).toEqual({ code: 0, stdout: 'Production Echo.Production killed\n', stderr: '' });
    expect(JSON.parse((await cli(['-x'])).stdout).Status).toBe('stopped');
  });

  it('-s without -D shows the log as it arrives; Ctrl+C stops the production and ends with 0', async () => {
    const running = startCli(['-s', 'Echo.Production'], { env, cwd: work });
    let stdout = '';
    let stderr = '';
    running.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    running.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitForOutput(() => stderr, "Production 'Echo.Production' started");
    await waitForOutput(() => stdout, 'echo operation ready');
    await cli(['-t', 'Echo.Operation', '-C', 'message.EchoRequest', '-B', '{"text": "while attached"}']);
    await waitForOutput(() => stdout, 'echoing while attached');
    running.child.kill('SIGINT');
    const result = await running.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Production Echo.Production stopped');
    for (const line of result.stdout.trimEnd().split('\n')) expect(line).toMatch(logLinePattern);
    expect(JSON.parse((await cli(['-x'])).stdout).Status).toBe('stopped');
  });

  it('-L follows the log until Ctrl+C, then ends with 0', async () => {
    const running = startCli(['-L'], { env, cwd: work });
    let stdout = '';
    running.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitForOutput(() => stdout, /\n/);
    await cli(['-s', '-D']);
    await waitForOutput(() => stdout, 'Production Echo.Production started');
    running.child.kill('SIGINT');
    expect((await running.result).code).toBe(0);
    await cli(['-S']);
  });

  it('a reader that goes away ends a followed log quietly', async () => {
    const running = startCli(['-L'], { env, cwd: work });
    await new Promise((resolve) => running.child.stdout!.once('data', resolve));
    running.child.stdout!.destroy();
    await cli(['-s', '-D']);
    await cli(['-S']);
    const result = await running.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('-i DIR uploads each class file, prints Uploaded: <name> and the compile console', async () => {
    const classes = join(work, 'classes', 'Demo');
    mkdirSync(classes, { recursive: true });
    writeFileSync(join(classes, 'Thing.cls'), 'Class Demo.Thing Extends %RegisteredObject\n{\n}\n');
    const result = await cli(['-i', 'classes']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Uploaded: Demo.Thing.cls');
    expect(lines.at(-1)).toBe('Loaded 1 class file into namespace USER');
  });

  it('-i without a folder loads the class files Conveyor bundles', async () => {
    const result = await cli(['-i']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Uploaded: Conveyor.Transform.StringRequestToResponse.cls');
  });

  it('--import-schema FILE PACKAGE NAME registers a JSON schema', async () => {
    writeFileSync(
      join(work, 'person.json'),
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        title: 'Person',
        properties: { name: { type: 'string', default: null } },
      }),
    );
    const result = await cli(['--import-schema', 'person.json', 'Demo', 'Person']);
    expect(result).toEqual({ code: 0, stdout: 'Schema Person imported into package Demo\n', stderr: '' });
  });

  it('--import-schema names a missing or invalid schema file before asking the server', async () => {
    expect(await cli(['--import-schema', 'none.json', 'Demo', 'X'])).toMatchObject({
      code: 1,
      stderr: `Error: --import-schema: cannot read ${join(work, 'none.json')}: no such file\n`,
    });
    writeFileSync(join(work, 'broken.json'), '{"type": ');
    expect((await cli(['--import-schema', 'broken.json', 'Demo', 'X'])).stderr).toContain(
      `Error: --import-schema: ${join(work, 'broken.json')} is not valid JSON`,
    );
  });

  it('-n overrides the namespace for one command', async () => {
    expect((await cli(['-h', '-n', 'OTHER'])).stdout).toContain('Namespace: OTHER');
    const result = await cli(['-x', '-n', 'NO_SUCH_NS']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ERROR #NAMESPACE_UNKNOWN: .*NO_SUCH_NS/);
  });
});

// util-linux `script` gives the CLI a pseudo-terminal, where it draws progress bars and colours.
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function onTerminal(args: string[], extra: Record<string, string> = {}): string {
  const quoted = [process.execPath, cliPath, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(' ');
  return execFileSync('script', ['-qec', quoted, '/dev/null'], { env: { ...env, ...extra, TERM: 'xterm' }, cwd: work, encoding: 'utf8' });
}

describe.skipIf(!hasScript)('cli on a terminal (needs util-linux script)', () => {
  it('draws a progress bar for a remote migrate upload', () => {
    const folder = echoPackageCopy();
    try {
      writeFileSync(join(folder, 'data', 'big.txt'), 'x'.repeat(2_000_000));
      const output = onTerminal(['-m', join(folder, 'settings.py')]);
      expect(output).toMatch(/Uploading \[[^\]]*\] 100% \d+\/\d+ bytes/);
      expect(output).toContain(`Migrated ${join(folder, 'settings.py')}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('colours log lines, unless NO_COLOR is set', () => {
    expect(onTerminal(['-L', '2'])).toContain('\x1b[36mINFO\x1b[0m');
    expect(onTerminal(['-L', '2'], { NO_COLOR: '1' })).not.toContain('\x1b[36m');
  });
});

describe('cli remote errors', () => {
  it('help still answers when the server is unreachable, with a warning', async () => {
    const port = await closedPort();
    const result = await cli(['-h'], { CLI_URL: `http://127.0.0.1:${port}` });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Mode: REMOTE (http://127.0.0.1:${port})`);
    expect(result.stdout).toContain('Default production: Python.Production');
    expect(result.stderr).toContain('Warning: could not retrieve the default production: Cannot reach the server');
  });

  it('a wrong password: 401 with the user and the URL, exit 1', async () => {
    const result = await cli(['-x'], { CLI_PASSWORD: 'wrong' });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: The server at ${server.url} refused the credentials of user 'admin' (HTTP 401) (set CLI_USERNAME and CLI_PASSWORD, or username and password in REMOTE_SETTINGS)\n`,
    });
  });

  it('an unreachable URL says which URL and why', async () => {
    const port = await closedPort();
    const result = await cli(['-l'], { CLI_URL: `http://127.0.0.1:${port}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error: Cannot reach the server at http://127.0.0.1:${port}: connection refused (nothing listens there) (check CLI_URL and that the server is running)\n`,
    );
  });

  it('a server error is shown as its text', async () => {
    const result = await cli(['-s', 'No.Such.Production', '-D']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ERROR #PRODUCTION_NOT_FOUND: .*No\.Such\.Production/);
    expect(result.stderr).not.toContain('    at ');
  });

  it('CONVEYOR_DEBUG=1 adds the stack trace', async () => {
    const result = await cli(['-s', 'No.Such.Production', '-D'], { CONVEYOR_DEBUG: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('    at ');
  });

  it('-B text that is not JSON goes to the server as text (as IoP sends it), which explains; a missing @file is explained', async () => {
    const invalid = await cli(['-t', 'Echo.Operation', '-C', 'message.EchoRequest', '-B', '{text: hi}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^ERROR #INVALID_INPUT: The test body of a Python message class must be a JSON object/);
    const missing = await cli(['-t', 'Echo.Operation', '-B', '@nothing.json']);
    expect(missing).toMatchObject({ code: 1, stderr: `Error: -B @nothing.json: cannot read ${join(work, 'nothing.json')}: no such file\n` });
  });

  it('-t without a component name asks for one', async () => {
    const result = await cli(['-t']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: -t needs the config name of the component to test');
  });

  it('a missing settings file for -m or -R is named', async () => {
    const migrate = await cli(['-m', 'missing/settings.py']);
    expect(migrate).toMatchObject({ code: 1, stderr: `Error: The settings file ${join(work, 'missing', 'settings.py')} does not exist\n` });
    expect(await cli(['-M', 'missing/settings.py'])).toEqual(migrate);
    expect(await cli(['--migrate', 'missing/settings.py'])).toEqual(migrate);
    const remote = await cli(['-x', '-R', 'missing.py'], { CLI_URL: '' });
    expect(remote).toMatchObject({ code: 1, stderr: `Error: Cannot read the settings file ${join(work, 'missing.py')}: no such file\n` });
  });

  it('usage errors print the usage on stderr and exit 2', async () => {
    for (const args of [['-l', '-x'], ['-z'], ['-m'], ['-D'], ['extra']]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^usage: cli .*\ncli: error: .+\nRun 'cli -h' to see the options\.\n$/);
    }
  });
});

describe('a server mounted elsewhere', () => {
  let custom: RunningServer;
  beforeAll(async () => {
    custom = await startServer(temporaryFolder('cli-prefix-home-'), ['--api-prefix', '/custom/iop']);
  });
  afterAll(async () => {
    await custom?.stop();
    if (custom) rmSync(custom.home, { recursive: true, force: true });
  });

  it('is reached with CLI_API_PREFIX, and a 404 says to check the address otherwise', async () => {
    const remote = { CLI_URL: custom.url, CLI_USERNAME: 'admin', CLI_PASSWORD: adminPassword };
    expect((await runCli(['-x'], { env: cleanEnv({ ...remote, CLI_API_PREFIX: '/custom/iop' }), cwd: work })).code).toBe(0);
    const missed = await runCli(['-x'], { env: cleanEnv(remote), cwd: work });
    expect(missed.code).toBe(1);
    expect(missed.stderr).toContain(`Error: The server at ${custom.url} has no route GET /api/iop/status (HTTP 404)`);
  });
});

describe('cli remote activation order', () => {
  const modeLine = async (args: string[], extra: Record<string, string>) =>
    (await runCli(['-h', ...args], { env: cleanEnv(extra), cwd: work })).stdout.trimEnd().split('\n').at(-1);

  function settingsFile(name: string, url: string, extra = ''): string {
    writeFileSync(
      join(work, name),
      `from not_installed import Thing\nREMOTE_SETTINGS = {"url": "${url}", "username": "admin", "password": "${adminPassword}"${extra}}\n`,
    );
    return name;
  }

  it('CLI_URL, then -R, then CLI_SETTINGS switch remote mode on; IOP_URL is a fallback', async () => {
    const file = settingsFile('remote.py', server.url);
    expect(await modeLine([], { CLI_URL: server.url })).toBe(`Mode: REMOTE (${server.url})`);
    expect(await modeLine([], { IOP_URL: server.url })).toBe(`Mode: REMOTE (${server.url})`);
    expect(await modeLine(['-R', file], {})).toBe(`Mode: REMOTE (${server.url})`);
    expect(await modeLine([], { CLI_SETTINGS: file })).toBe(`Mode: REMOTE (${server.url})`);
  });

  it('CLI_URL beats -R, -R beats CLI_SETTINGS', async () => {
    const bogus = `http://127.0.0.1:${await closedPort()}`;
    const good = settingsFile('good.py', server.url);
    const bad = settingsFile('bad.py', bogus);
    expect((await runCli(['-x', '-R', bad], { env: { ...env }, cwd: work })).code).toBe(0);
    expect((await runCli(['-x', '-R', good], { env: cleanEnv({ CLI_SETTINGS: bad }), cwd: work })).code).toBe(0);
    expect((await runCli(['-x', '-R', good], { env: cleanEnv({ CLI_URL: bogus }), cwd: work })).stderr).toContain(`Cannot reach the server at ${bogus}`);
  });

  it('--force-local beats CLI_URL and -R', async () => {
    const home = join(work, 'no-server-home');
    const file = settingsFile('forced.py', server.url);
    expect(await modeLine(['--force-local', '-R', file], { CLI_URL: server.url, CONVEYOR_HOME: home })).toBe(`Mode: LOCAL (${home})`);
    expect(existsSync(join(home, 'server.log'))).toBe(false);
  });

  it('a -m settings file with REMOTE_SETTINGS migrates remotely, with its package name', async () => {
    const folder = echoPackageCopy(`{"url": "${server.url}", "username": "admin", "password": "${adminPassword}", "package": "echo_remote"}`);
    try {
      const result = await runCli(['-m', join(folder, 'settings.py')], { env: cleanEnv({ CONVEYOR_HOME: join(work, 'unused-home') }), cwd: work });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('as package echo_remote');
      expect(existsSync(join(server.home, 'packages', 'USER', 'echo_remote', 'settings.py'))).toBe(true);
      expect(existsSync(join(work, 'unused-home'))).toBe(false);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('CLI_SETTINGS beats the -m file, whose package name is still used', async () => {
    const bogus = `http://127.0.0.1:${await closedPort()}`;
    const folder = echoPackageCopy(`{"url": "${bogus}", "package": "echo_via_settings"}`);
    try {
      const result = await runCli(['-m', join(folder, 'settings.py')], { env: cleanEnv({ CLI_SETTINGS: settingsFile('via.py', server.url) }), cwd: work });
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(join(server.home, 'packages', 'USER', 'echo_via_settings', 'settings.py'))).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('the Python SDK fixture package, remotely', () => {
  it('migrates the SDK fixture (imports that fail on the client included), starts it and tests an operation with typed settings', async () => {
    const folder = temporaryFolder('cli-sdk-fixture-');
    try {
      cpSync(join(repositoryRoot, 'test', 'fixtures', 'python', 'migration'), folder, { recursive: true });
      const settings = join(folder, 'settings.py');
      writeFileSync(
        settings,
        `${readFileSync(settings, 'utf8')}\nREMOTE_SETTINGS = {"url": "${server.url}", "username": "admin", "password": "${adminPassword}", "package": "sdk_fixture"}\n`,
      );
      const migrated = await runCli(['-m', settings], { env: cleanEnv(), cwd: work });
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(Object.keys(JSON.parse((await cli(['-l'])).stdout))).toEqual(expect.arrayContaining(['Python.TestSettingProduction', 'dc.Python.Production']));
      expect((await cli(['-s', 'Python.TestSettingProduction', '-D'])).code).toBe(0);
      const tested = await cli(['-t', 'UnitTest.MySettingOperation', '-C', 'Ens.StringRequest', '-B', '{"StringValue": "my_int_var"}']);
      expect(tested).toEqual({ code: 0, stdout: 'classname: message.MyResponse\nbody:\n{\n    "value": "1"\n}\n', stderr: '' });
    } finally {
      await cli(['-S']);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

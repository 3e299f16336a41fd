/**
 * An item's own Python, end to end through the real engine and python3 workers: a real virtual
 * environment (python3 -m venv) holds a package in its site-packages, and only the items that name
 * that environment (their `%python` setting, or their production's `pythonByProduction` entry) can
 * import it. Also the debugger launcher of one item (`%debugpy`): the clear failure when debugpy is
 * not installed, and the hand-over to the worker host when it is (a stand-in debugpy in the venv
 * records the calls, since the real one is not installed here).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newItem, newProduction, type ItemSetting } from '../../src/core/production.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { tempDir } from '../support/temp-dir.ts';

const operationCode = `
from iop import BusinessOperation, Message
from dataclasses import dataclass

@dataclass
class Greeting(Message):
    text: str = None

class GreeterOperation(BusinessOperation):
    def on_message(self, request):
        import greeting_lib  # only installed in the virtual environment
        return Greeting(text=greeting_lib.greet(request.text))
`;

const settingsCode = `
from bo import GreeterOperation
CLASSES = {'Demo.Greeter': GreeterOperation}
`;

describe('an item runs in the Python interpreter or virtual environment it names', () => {
  const dir = tempDir('conveyor-venv-');
  const venv = join(dir.path, 'venv');
  const code = join(dir.path, 'code');
  const debugLog = join(dir.path, 'debugpy-calls.txt');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;

  beforeAll(async () => {
    execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
    const sitePackages = execFileSync(join(venv, 'bin', 'python'), ['-c', "import sysconfig; print(sysconfig.get_paths()['purelib'])"], {
      encoding: 'utf8',
    }).trim();
    mkdirSync(join(sitePackages, 'greeting_lib'), { recursive: true });
    writeFileSync(join(sitePackages, 'greeting_lib', '__init__.py'), "def greet(name):\n    return 'hello ' + name + ' from the venv'\n");
    mkdirSync(code, { recursive: true });
    writeFileSync(join(code, 'bo.py'), operationCode);
    writeFileSync(join(code, 'settings.py'), settingsCode);
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db'), durability: 'normal' });
    engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000, pythonByProduction: { 'Demo.ByProduction': venv } });
    user = await engine.namespace('USER');
    await user.migrate(join(code, 'settings.py'));
  });

  afterEach(async () => {
    if ((await user.status()).status === 'running') await user.stop();
  });

  afterAll(async () => {
    await engine.close();
    await store.close();
    dir.remove();
  });

  async function startWith(production: string, settings: ItemSetting[]): Promise<void> {
    await user.putDefinition(newProduction(production, [newItem('Greeter', 'Demo.Greeter', { settings })]));
    await user.start(production);
  }

  async function greet(): Promise<string> {
    const result = await user.test({ target: 'Greeter', classname: 'bo.Greeting', body: { text: 'Ada' }, restart: false });
    return (JSON.parse(result.body) as { text: string }).text;
  }

  async function itemError(): Promise<string> {
    const item = (await user.items()).find((i) => i.name === 'Greeter');
    expect(item?.state).toBe('error');
    return [item?.error ?? '', ...(await user.log.top(50)).map((entry) => entry.text)].join('\n');
  }

  it("imports a package of the item's virtual environment (%python names the venv folder)", async () => {
    await startWith('Demo.ByItem', [{ target: 'Host', name: '%python', value: venv }]);
    expect(await greet()).toBe('hello Ada from the venv');
  });

  it("also when %python names the venv's interpreter, or a path relative to the class's package folder", async () => {
    await startWith('Demo.ByInterpreter', [{ target: 'Host', name: '%python', value: join(venv, 'bin', 'python') }]);
    expect(await greet()).toBe('hello Ada from the venv');
    await user.stop();
    await startWith('Demo.Relative', [{ target: 'Host', name: '%python', value: '../venv' }]);
    expect(await greet()).toBe('hello Ada from the venv');
  });

  it("imports it through the production's pythonByProduction entry (conveyor.yaml)", async () => {
    await startWith('Demo.ByProduction', []);
    expect(await greet()).toBe('hello Ada from the venv');
  });

  it("does not see the venv's packages with the server's interpreter", async () => {
    await startWith('Demo.Plain', []);
    await expect(greet()).rejects.toThrow(/No module named 'greeting_lib'/);
  });

  it('puts the item in error, naming the setting, when %python is neither an interpreter nor a venv', async () => {
    await startWith('Demo.NotAVenv', [{ target: 'Host', name: '%python', value: code }]);
    expect(await itemError()).toContain(
      `the %python setting of item Greeter names the folder ${code}, which is not a virtual environment (it has no bin/python)`,
    );
    await user.stop();
    await startWith('Demo.Missing', [{ target: 'Host', name: '%python', value: join(dir.path, 'nowhere', 'python') }]);
    expect(await itemError()).toContain(`names ${join(dir.path, 'nowhere', 'python')}, which does not exist`);
  });

  it('refuses to start an item to debug when debugpy is not installed, saying what to do', async () => {
    await startWith('Demo.NoDebugpy', [{ target: 'Host', name: '%debugpy', value: '5678' }]);
    const log = await itemError();
    expect(log).toMatch(/debugpy is not installed for \S+python3?\S*; install it into that interpreter \(\S+ -m pip install debugpy\)/);
  });

  it("listens with debugpy in the item's worker, waits for the client when asked, then runs the item", async () => {
    const sitePackages = execFileSync(join(venv, 'bin', 'python'), ['-c', "import sysconfig; print(sysconfig.get_paths()['purelib'])"], {
      encoding: 'utf8',
    }).trim();
    // A stand-in for debugpy's two calls the launcher makes; it records them instead of opening a port.
    writeFileSync(
      join(sitePackages, 'debugpy.py'),
      `def _record(line):\n    with open(${JSON.stringify(debugLog)}, 'a') as f:\n        f.write(line + '\\n')\n` +
        `def listen(address):\n    _record('listen %s:%d' % address)\n` +
        `def wait_for_client():\n    _record('wait_for_client')\n`,
    );
    try {
      await startWith('Demo.Debug', [
        { target: 'Host', name: '%python', value: venv },
        { target: 'Host', name: '%debugpy', value: '127.0.0.1:5790' },
        { target: 'Host', name: '%debugpy_wait', value: 'true' },
      ]);
      expect(await greet()).toBe('hello Ada from the venv');
      expect(readFileSync(debugLog, 'utf8')).toBe('listen 127.0.0.1:5790\nwait_for_client\n');
    } finally {
      execFileSync('rm', ['-f', join(sitePackages, 'debugpy.py')]);
    }
  });

  it('refuses a %debugpy setting that is not a port', async () => {
    await startWith('Demo.BadPort', [{ target: 'Host', name: '%debugpy', value: 'seventy' }]);
    expect(await itemError()).toContain('Item Greeter: %debugpy must be a port or host:port, got "seventy"');
  });
});

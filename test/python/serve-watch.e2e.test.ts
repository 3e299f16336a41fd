/**
 * `conveyor serve --watch`, end to end: a real server on a fresh home runs a production of two
 * Python operations; editing a file one of them imports restarts that item only (its next reply shows
 * the new code, the other keeps its worker), with one event-log entry naming the file. A change that
 * breaks the import leaves the item in error with a warning; the fix restarts it again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const production = 'Demo.Watch';

const files: Record<string, string> = {
  'msg.py': `from dataclasses import dataclass\nfrom iop import Message\n\n@dataclass\nclass Probe(Message):\n    text: str = None\n    pid: int = None\n`,
  'helper.py': `WORD = 'v1'\n`,
  'bo.py':
    `import os\nfrom iop import BusinessOperation\nfrom msg import Probe\nfrom helper import WORD\n\n` +
    `class EchoOperation(BusinessOperation):\n    def on_message(self, request):\n        return Probe(text=WORD, pid=os.getpid())\n`,
  'other.py':
    `import os\nfrom iop import BusinessOperation\nfrom msg import Probe\n\n` +
    `class OtherOperation(BusinessOperation):\n    def on_message(self, request):\n        return Probe(text='other', pid=os.getpid())\n`,
  'settings.py':
    `from bo import EchoOperation\nfrom other import OtherOperation\n` +
    `CLASSES = {'Demo.Echo': EchoOperation, 'Demo.Other': OtherOperation}\n` +
    `PRODUCTIONS = [{'${production}': {'@Name': '${production}', 'Item': [` +
    `{'@Name': 'Echo', '@ClassName': 'Demo.Echo'}, {'@Name': 'Other', '@ClassName': 'Demo.Other'}]}}]\n`,
};

describe('conveyor serve --watch', () => {
  const dir = tempDir('conveyor-watch-');
  afterAll(() => dir.remove());

  it('restarts only the item whose Python files changed, with an event-log entry per restart', async () => {
    const home = join(dir.path, 'home');
    const code = join(home, 'code');
    mkdirSync(code, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(code, name), text);
    const server = await startServerProcess(home, ['--watch']);
    try {
      // Printed just after the API line startServerProcess waits for.
      await eventually(() => server.output().includes('Watching the Python files of the running items'), 'the --watch line');
      const probe = async (target: string) => {
        const reply = await server.local('POST', '/api/iop/test', { target, classname: 'msg.Probe', body: {}, restart: false });
        expect(reply.status, reply.text).toBe(200);
        return JSON.parse((reply.json as { body: string }).body) as { text: string; pid: number };
      };
      const log = async () => ((await server.local('GET', '/api/iop/log?top=100')).json as Array<{ text: string; type: string; config_name?: string }>) ?? [];
      const watchEntries = async () => (await log()).filter((entry) => entry.text.includes('[serve --watch]'));

      expect((await server.local('PUT', '/api/iop/migrate', { local_path: join(code, 'settings.py') })).status).toBe(200);
      expect((await server.local('POST', '/api/iop/start', { production })).status).toBe(200);
      const echo = await probe('Echo');
      const other = await probe('Other');
      expect(echo.text).toBe('v1');
      // Seen once by the watcher before the edit (it records what it first sees).
      await new Promise((resolve) => setTimeout(resolve, 1500));

      writeFileSync(join(code, 'helper.py'), `WORD = 'v2 after the edit'\n`);
      const edited = await eventually(async () => {
        const reply = await probe('Echo');
        return reply.text === 'v2 after the edit' ? reply : undefined;
      }, 'the Echo item to run the edited helper.py');
      expect(edited.pid).not.toBe(echo.pid);
      const entries = await watchEntries();
      expect(entries.map((entry) => entry.text)).toEqual(['Restarting item Echo: its Python files changed (helper.py) [serve --watch]']);
      expect(await probe('Other')).toEqual(other);

      // A broken edit: the item goes to error with a warning; fixing the file brings it back.
      writeFileSync(join(code, 'bo.py'), `${files['bo.py']}\nthis is not python\n`);
      await eventually(
        async () =>
          (await log()).some((entry) => entry.type === 'Warning' && entry.text.startsWith('Item Echo did not restart after its Python files changed')) ||
          undefined,
        'the warning of the failed restart',
      );
      writeFileSync(join(code, 'bo.py'), files['bo.py']!.replace('text=WORD', "text=WORD + ' fixed'"));
      await eventually(async () => ((await probe('Echo')).text === 'v2 after the edit fixed' ? true : undefined), 'the fixed Echo item');
      expect((await watchEntries()).map((entry) => entry.text)).toEqual([
        'Restarting item Echo: its Python files changed (bo.py) [serve --watch]',
        'Restarting item Echo: its Python files changed (bo.py) [serve --watch]',
        'Restarting item Echo: its Python files changed (helper.py) [serve --watch]',
      ]);
      expect(await probe('Other')).toEqual(other);
    } finally {
      await server.kill('SIGTERM');
    }
  }, 120_000);
});

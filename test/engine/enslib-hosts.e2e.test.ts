/**
 * IRIS's built-in hosts and adapters through the real engine, store and python3 workers, on real
 * folders and a real HTTP server: the EnsLib.File passthrough pair moves files (text and binary)
 * and archives them; Python components naming EnsLib.File.InboundAdapter, EnsLib.File.OutboundAdapter
 * and EnsLib.HTTP.OutboundAdapter in get_adapter_type() get working adapters.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newItem, newProduction, type ItemDefinition } from '../../src/core/production.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const setting = (target: 'Host' | 'Adapter', name: string, value: string): ItemDefinition['settings'][number] => ({ target, name, value });

/** A file appears in `folder` whole: written beside it, then renamed in (as a well-behaved sender does). */
function drop(folder: string, name: string, content: string | Buffer): void {
  const staged = join(folder, '..', `.staged-${name}`);
  writeFileSync(staged, content);
  renameSync(staged, join(folder, name));
}

const pythonPackage = {
  'settings.py': `
from components import FileIn, Writer, Poster
CLASSES = {'Demo.FileIn': FileIn, 'Demo.Writer': Writer, 'Demo.Poster': Poster}
`,
  'components.py': `
import json
from dataclasses import dataclass
from iop import BusinessOperation, BusinessService, Message

@dataclass
class Document(Message):
    name: str = ''
    text: str = ''
    size: int = 0

class FileIn(BusinessService):
    @staticmethod
    def get_adapter_type():
        return 'EnsLib.File.InboundAdapter'

    def on_process_input(self, stream):
        first = stream.ReadLine()
        rest = stream.Read()
        document = Document(name=stream.OriginalFilename, text=first + '|' + rest, size=stream.Size)
        self.send_request_sync('Writer', document)
        self.send_request_sync('Poster', document)

class Writer(BusinessOperation):
    @staticmethod
    def get_adapter_type():
        return 'EnsLib.File.OutboundAdapter'

    def on_message(self, request):
        self.adapter.PutString(request.name + '.out', request.text.upper())
        self.adapter.PutLine('all.log', request.name)
        return None

class Poster(BusinessOperation):
    @staticmethod
    def get_adapter_type():
        return 'EnsLib.HTTP.OutboundAdapter'

    def on_message(self, request):
        response = self.adapter.Post({'name': request.name, 'size': request.size})
        form = self.adapter.SendFormData('GET', 'name', request.name)
        self.log_info(f'posted {request.name}: {response.StatusCode} {response.json()["ok"]}, form {form.StatusCode}')
        return None
`,
};

describe("IRIS's built-in hosts and adapters", () => {
  const dir = tempDir('conveyor-enslib-e2e-');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;
  let http: Server;
  let port = 0;
  const received: Array<{ method: string; url: string; body: string; type: string }> = [];

  beforeAll(async () => {
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db'), durability: 'normal' });
    engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000 });
    user = await engine.namespace('USER');
    http = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          type: request.headers['content-type'] ?? '',
        });
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end('{"ok": true}');
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
  });

  afterEach(async () => {
    if ((await user.status()).status === 'running') await user.stop();
  });

  afterAll(async () => {
    await engine.close();
    await store.close();
    await new Promise((resolve) => http.close(resolve));
    dir.remove();
  });

  it('EnsLib.File.PassthroughService and PassthroughOperation copy text and binary files unchanged, then archive them', async () => {
    const [inbox, archive, work, out] = ['in', 'archive', 'work', 'out'].map((name) => join(dir.path, 'passthrough', name)) as [string, string, string, string];
    await user.putDefinition(
      newProduction('Demo.Passthrough', [
        newItem('FileIn', 'EnsLib.File.PassthroughService', {
          settings: [
            setting('Adapter', 'FilePath', inbox),
            setting('Adapter', 'FileSpec', '*.txt;*.bin'),
            setting('Adapter', 'ArchivePath', archive),
            setting('Adapter', 'WorkPath', work),
            setting('Adapter', 'CallInterval', '1'),
            setting('Host', 'TargetConfigNames', 'FileOut'),
          ],
        }),
        newItem('FileOut', 'EnsLib.File.PassthroughOperation', { settings: [setting('Adapter', 'FilePath', out), setting('Host', 'Filename', '%f.copy')] }),
      ]),
    );
    await user.start('Demo.Passthrough');
    const binary = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x0d, 0x0a, 0x80]);
    drop(inbox, 'note.txt', 'héllo\r\nworld');
    drop(inbox, 'scan.bin', binary);
    drop(inbox, 'ignored.csv', 'not matching FileSpec');
    // The operation writes a hidden temporary file and renames it: only the renamed files count.
    const written = () => readdirSync(out).filter((name) => !name.startsWith('.'));
    await eventually(() => written().length === 2 || undefined, 'both files to be written');
    expect(written().sort()).toEqual(['note.txt.copy', 'scan.bin.copy']);
    expect(readFileSync(join(out, 'note.txt.copy'), 'utf8')).toBe('héllo\r\nworld');
    expect(readFileSync(join(out, 'scan.bin.copy')).equals(binary)).toBe(true);
    await eventually(() => readdirSync(archive).length === 2 || undefined, 'both files to be archived');
    expect(readdirSync(archive).sort()).toEqual(['note.txt', 'scan.bin']);
    expect(readFileSync(join(archive, 'scan.bin')).equals(binary)).toBe(true);
    expect(readdirSync(inbox)).toEqual(['ignored.csv']);
    expect(readdirSync(work)).toEqual([]);
    const requests = await user.messages.search({ target: 'FileOut', kind: 'request', limit: 10 });
    expect(requests.map((m) => m.description).sort()).toEqual(['note.txt', 'scan.bin']);
    for (const header of requests) expect((await user.messages.get(header.id)).body.classname).toBe('Ens.StreamContainer');
  });

  it('gives Python components the IRIS file and HTTP adapters their get_adapter_type() names', async () => {
    const code = join(dir.path, 'code');
    mkdirSync(code, { recursive: true });
    for (const [name, text] of Object.entries(pythonPackage)) writeFileSync(join(code, name), text);
    await user.migrate(join(code, 'settings.py'));
    const [inbox, out] = [join(dir.path, 'py', 'in'), join(dir.path, 'py', 'out')];
    await user.putDefinition(
      newProduction('Demo.Adapters', [
        newItem('FileIn', 'Demo.FileIn', { settings: [setting('Adapter', 'FilePath', inbox), setting('Adapter', 'CallInterval', '1')] }),
        newItem('Writer', 'Demo.Writer', { settings: [setting('Adapter', 'FilePath', out)] }),
        newItem('Poster', 'Demo.Poster', {
          settings: [setting('Adapter', 'HTTPServer', '127.0.0.1'), setting('Adapter', 'HTTPPort', String(port)), setting('Adapter', 'URL', '/documents')],
        }),
      ]),
    );
    await user.start('Demo.Adapters');
    expect((await user.items()).filter((item) => item.state !== 'running')).toEqual([]);
    mkdirSync(inbox, { recursive: true });
    drop(inbox, 'a.txt', 'first line\nsecond line');
    await eventually(() => readdirSync(inbox).length === 0 || undefined, 'the inbound file to be taken and deleted');
    await eventually(() => received.length === 2 || undefined, 'the HTTP calls');
    expect(readFileSync(join(out, 'a.txt.out'), 'utf8')).toBe('FIRST LINE|SECOND LINE');
    expect(readFileSync(join(out, 'all.log'), 'utf8')).toBe('a.txt\n');
    expect(received[0]).toEqual({ method: 'POST', url: '/documents', body: '{"name": "a.txt", "size": 22}', type: 'application/json' });
    expect(received[1]).toMatchObject({ method: 'GET', url: '/documents?name=a.txt' });
    await eventually(async () => (await user.log.top(100)).some((entry) => entry.text === 'posted a.txt: 200 True, form 200') || undefined, 'the log line');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { componentContext, textBody } from '../../../test/support/component-harness.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { EchoOperation } from './echo-operation.ts';

let dir: ReturnType<typeof tempDir> | undefined;
afterEach(() => dir?.remove());

describe('Conveyor.Operation.Echo', () => {
  it('answers each request with a copy of it', async () => {
    const echo = new EchoOperation();
    await echo.init(componentContext());
    const request = textBody('{"n":1}');
    const reply = await echo.onMessage(request);
    expect(reply).toEqual(request);
    expect(reply).not.toBe(request);
  });

  it('answers an empty request with an empty Ens.Response', async () => {
    const echo = new EchoOperation();
    await echo.init(componentContext());
    expect(await echo.onMessage({ classname: 'Ens.Request', encoding: 'empty', data: '' })).toEqual({
      classname: 'Ens.Response',
      encoding: 'empty',
      data: '',
    });
  });

  it('with FilePath, appends one JSON line per request to that file', async () => {
    dir = tempDir();
    const file = join(dir.path, 'record.jsonl');
    const echo = new EchoOperation();
    await echo.init(componentContext({ host: { FilePath: file } }));
    await echo.onMessage(textBody('{"n":1}', 'msg.A'));
    await echo.onMessage(textBody('line\nbreak', 'msg.B'));
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.slice(0, 2).map((line) => JSON.parse(line) as unknown)).toEqual([
      { classname: 'msg.A', data: '{"n":1}' },
      { classname: 'msg.B', data: 'line\nbreak' },
    ]);
  });

  it('fails the message when the record file cannot be written', async () => {
    dir = tempDir();
    const echo = new EchoOperation();
    await echo.init(componentContext({ host: { FilePath: join(dir.path, 'no-such-folder', 'record.jsonl') } }));
    await expect(echo.onMessage(textBody('{}'))).rejects.toThrow(/ENOENT/);
  });
});

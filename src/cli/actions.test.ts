import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTestBody } from './actions.ts';

const cwd = mkdtempSync(join(tmpdir(), 'cli-body-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('readTestBody (-B)', () => {
  it('parses inline JSON of any kind', () => {
    expect(readTestBody('{"a": [1, 2]}', cwd)).toEqual({ a: [1, 2] });
    expect(readTestBody('"text"', cwd)).toBe('text');
    expect(readTestBody(undefined, cwd)).toBeUndefined();
  });

  it('reads @file relative to the working directory', () => {
    writeFileSync(join(cwd, 'body.json'), '{"from": "file"}');
    expect(readTestBody('@body.json', cwd)).toEqual({ from: 'file' });
  });

  it('sends a text that is not JSON as that text, inline or from a file, as IoP does', () => {
    expect(readTestBody('hello world', cwd)).toBe('hello world');
    expect(readTestBody('{a: 1}', cwd)).toBe('{a: 1}');
    expect(readTestBody('42', cwd)).toBe('42');
    writeFileSync(join(cwd, 'plain.txt'), 'not json\n');
    expect(readTestBody('@plain.txt', cwd)).toBe('not json\n');
  });

  it('names a missing @file', () => {
    expect(() => readTestBody('@missing.json', cwd)).toThrow(`-B @missing.json: cannot read ${join(cwd, 'missing.json')}: no such file`);
  });
});

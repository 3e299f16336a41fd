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

  it('explains invalid inline JSON and how to quote it', () => {
    expect(() => readTestBody('{a: 1}', cwd)).toThrow(/^-B is not valid JSON: /);
    try {
      readTestBody('{a: 1}', cwd);
    } catch (error) {
      expect((error as { hint: string }).hint).toContain('-B @file.json');
    }
  });

  it('names a missing @file and an @file that is not JSON', () => {
    expect(() => readTestBody('@missing.json', cwd)).toThrow(`-B @missing.json: cannot read ${join(cwd, 'missing.json')}: no such file`);
    writeFileSync(join(cwd, 'bad.json'), 'not json');
    expect(() => readTestBody('@bad.json', cwd)).toThrow(`-B @bad.json: ${join(cwd, 'bad.json')} is not valid JSON`);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'conveyor-config-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('pythonByProduction', () => {
  it('maps production names to interpreters or venvs; a path is read from the home, a bare command stays', () => {
    expect(loadConfig({ home }).pythonByProduction).toEqual({});
    writeFileSync(join(home, 'conveyor.yaml'), 'pythonByProduction:\n  Demo.A: venvs/a\n  Demo.B: /opt/venv\n  Demo.C: python3.12\n');
    expect(loadConfig({ home }).pythonByProduction).toEqual({ 'Demo.A': join(home, 'venvs', 'a'), 'Demo.B': '/opt/venv', 'Demo.C': 'python3.12' });
  });

  it('refuses anything but a map of names to non-empty strings', () => {
    writeFileSync(join(home, 'conveyor.yaml'), 'pythonByProduction: /opt/venv\n');
    expect(() => loadConfig({ home })).toThrow(/pythonByProduction must map names to non-empty strings, got "\/opt\/venv"/);
    writeFileSync(join(home, 'conveyor.yaml'), 'pythonByProduction:\n  Demo.A: ""\n');
    expect(() => loadConfig({ home })).toThrow(/pythonByProduction must map names to non-empty strings/);
  });
});

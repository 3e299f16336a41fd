import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFalseText, readRemoteSettings } from './remote-settings.ts';

const folder = mkdtempSync(join(tmpdir(), 'cli-remote-settings-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function settingsFile(name: string, source: string): string {
  const path = join(folder, name);
  writeFileSync(path, source);
  return path;
}

describe('readRemoteSettings', () => {
  it('recognises REMOTE_SETTINGS in a file whose imports fail here', () => {
    const path = settingsFile(
      'imports.py',
      'from bo import MyOperation  # not importable on this machine\nimport iris\nREMOTE_SETTINGS = {"url": "http://h:1", "username": "u", "password": "p", "namespace": "NS", "verify_ssl": False, "package": "pkg", "remote_folder": "/srv/x"}\n',
    );
    expect(readRemoteSettings(path)).toEqual({
      kind: 'remote',
      settings: { url: 'http://h:1', username: 'u', password: 'p', namespace: 'NS', verify_ssl: false, package: 'pkg', remote_folder: '/srv/x' },
    });
  });

  it('says none for a file without REMOTE_SETTINGS or without url, keeping the other keys', () => {
    expect(readRemoteSettings(settingsFile('plain.py', 'CLASSES = {}\n'))).toMatchObject({
      kind: 'none',
      reason: expect.stringContaining('defines no REMOTE_SETTINGS'),
    });
    expect(readRemoteSettings(settingsFile('nourl.py', 'REMOTE_SETTINGS = {"package": "p"}\n'))).toEqual({
      kind: 'none',
      reason: expect.stringContaining('has no "url"'),
      settings: { package: 'p' },
    });
  });

  it('reads verify_ssl given as a number or text', () => {
    expect(readRemoteSettings(settingsFile('v0.py', 'REMOTE_SETTINGS = {"url": "u", "verify_ssl": 0}'))).toMatchObject({ settings: { verify_ssl: false } });
    expect(readRemoteSettings(settingsFile('vt.py', 'REMOTE_SETTINGS = {"url": "u", "verify_ssl": "false"}'))).toMatchObject({
      settings: { verify_ssl: false },
    });
    expect(readRemoteSettings(settingsFile('v1.py', 'REMOTE_SETTINGS = {"url": "u", "verify_ssl": True}'))).toMatchObject({ settings: { verify_ssl: true } });
  });

  it('fails with the path when the file is missing or a folder', () => {
    expect(() => readRemoteSettings(join(folder, 'missing.py'))).toThrow(/Cannot read the settings file .*missing\.py: no such file/);
    mkdirSync(join(folder, 'dir.py'));
    expect(() => readRemoteSettings(join(folder, 'dir.py'))).toThrow(/it is a directory/);
  });

  it('fails, naming the line, when REMOTE_SETTINGS is computed rather than written out', () => {
    const path = settingsFile('computed.py', 'import os\n\nREMOTE_SETTINGS = {"url": os.getenv("URL")}\n');
    expect(() => readRemoteSettings(path)).toThrow(/REMOTE_SETTINGS in .*computed\.py \(line 3\) is not a plain literal/);
  });

  it('fails when REMOTE_SETTINGS is not a dict or a key has the wrong type', () => {
    expect(() => readRemoteSettings(settingsFile('list.py', 'REMOTE_SETTINGS = ["http://h"]'))).toThrow(/must be a dict/);
    expect(() => readRemoteSettings(settingsFile('badkey.py', 'REMOTE_SETTINGS = {"url": ["x"]}'))).toThrow(/REMOTE_SETTINGS\["url"\] .* must be a string/);
  });

  it('fails on a file that is not valid Python', () => {
    expect(() => readRemoteSettings(settingsFile('broken.py', 'REMOTE_SETTINGS = {"url": "x\n'))).toThrow(/is not valid Python: line 1/);
  });
});

describe('isFalseText', () => {
  it('turns false, 0, no and off (any case) into false', () => {
    for (const text of ['false', 'FALSE', '0', 'no', 'Off', ' false ']) expect(isFalseText(text)).toBe(true);
    for (const text of ['true', '1', 'yes', '']) expect(isFalseText(text)).toBe(false);
  });
});

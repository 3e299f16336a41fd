import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveMode, type ModeInputs } from './mode.ts';

const cwd = mkdtempSync(join(tmpdir(), 'cli-mode-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

writeFileSync(join(cwd, 'r.py'), 'REMOTE_SETTINGS = {"url": "http://from-r:1/", "username": "ruser", "namespace": "RNS"}\n');
writeFileSync(join(cwd, 'env.py'), 'REMOTE_SETTINGS = {"url": "http://from-env-file:2"}\n');
writeFileSync(join(cwd, 'migrate.py'), 'from bo import X\nREMOTE_SETTINGS = {"url": "http://from-m:3", "verify_ssl": False}\n');
writeFileSync(join(cwd, 'local.py'), 'CLASSES = {}\n');

function mode(overrides: Partial<ModeInputs>) {
  return resolveMode({ forceLocal: false, env: { HOME: '/home/someone' }, cwd, ...overrides });
}

describe('resolveMode: the activation order', () => {
  it('is local with nothing set, on ~/.conveyor and namespace USER', () => {
    expect(mode({})).toEqual({ kind: 'local', home: '/home/someone/.conveyor', namespace: 'USER' });
  });

  it('uses CONVEYOR_HOME (relative to cwd) for the local home', () => {
    expect(mode({ env: { CONVEYOR_HOME: 'h' } })).toMatchObject({ kind: 'local', home: join(cwd, 'h') });
  });

  it('1. CLI_URL, with the CLI_* variables', () => {
    const env = { CLI_URL: 'https://u:9/', CLI_USERNAME: 'me', CLI_PASSWORD: 'pw', CLI_NAMESPACE: 'NS', CLI_VERIFY_SSL: 'false' };
    expect(mode({ env })).toEqual({ kind: 'remote', url: 'https://u:9', username: 'me', password: 'pw', namespace: 'NS', verifySsl: false, source: 'CLI_URL' });
  });

  it('1. CLI_URL without credentials sends empty ones, namespace USER, TLS verified', () => {
    expect(mode({ env: { CLI_URL: 'http://u' } })).toEqual({
      kind: 'remote',
      url: 'http://u',
      username: '',
      password: '',
      namespace: 'USER',
      verifySsl: true,
      source: 'CLI_URL',
    });
  });

  it('accepts IOP_* variables as fallbacks, CLI_* winning', () => {
    expect(mode({ env: { IOP_URL: 'http://iop', IOP_USERNAME: 'i', IOP_VERIFY_SSL: '0' } })).toMatchObject({
      url: 'http://iop',
      username: 'i',
      verifySsl: false,
    });
    expect(mode({ env: { IOP_URL: 'http://iop', CLI_URL: 'http://cli' } })).toMatchObject({ url: 'http://cli' });
  });

  it('2. -R file when CLI_URL is absent; its keys first, the variables fill the rest', () => {
    expect(mode({ remoteSettingsFile: 'r.py', env: { CLI_PASSWORD: 'envpw', CLI_USERNAME: 'envuser' } })).toEqual({
      kind: 'remote',
      url: 'http://from-r:1',
      username: 'ruser',
      password: 'envpw',
      namespace: 'RNS',
      verifySsl: true,
      source: '-R',
    });
  });

  it('CLI_URL beats -R', () => {
    expect(mode({ remoteSettingsFile: 'r.py', env: { CLI_URL: 'http://env' } })).toMatchObject({ url: 'http://env', source: 'CLI_URL' });
  });

  it('3. CLI_SETTINGS when neither CLI_URL nor -R is given; -R beats it', () => {
    expect(mode({ env: { CLI_SETTINGS: 'env.py' } })).toMatchObject({ url: 'http://from-env-file:2', source: 'CLI_SETTINGS' });
    expect(mode({ env: { IOP_SETTINGS: 'env.py' } })).toMatchObject({ source: 'CLI_SETTINGS' });
    expect(mode({ remoteSettingsFile: 'r.py', env: { CLI_SETTINGS: 'env.py' } })).toMatchObject({ source: '-R' });
  });

  it('4. a -m settings file with REMOTE_SETTINGS, last; every earlier rule beats it', () => {
    expect(mode({ migrateFile: 'migrate.py' })).toMatchObject({ url: 'http://from-m:3', verifySsl: false, source: '-m' });
    expect(mode({ migrateFile: 'migrate.py', env: { CLI_SETTINGS: 'env.py' } })).toMatchObject({ source: 'CLI_SETTINGS' });
    expect(mode({ migrateFile: 'migrate.py', remoteSettingsFile: 'r.py' })).toMatchObject({ source: '-R' });
    expect(mode({ migrateFile: 'migrate.py', env: { CLI_URL: 'http://env' } })).toMatchObject({ source: 'CLI_URL' });
  });

  it('a -m settings file without REMOTE_SETTINGS stays local', () => {
    expect(mode({ migrateFile: 'local.py' })).toMatchObject({ kind: 'local' });
  });

  it('--force-local beats every activation, -R included', () => {
    const everything = {
      forceLocal: true,
      remoteSettingsFile: 'r.py',
      migrateFile: 'migrate.py',
      env: { CLI_URL: 'http://env', CLI_SETTINGS: 'env.py', HOME: '/h' },
    };
    expect(mode(everything)).toEqual({ kind: 'local', home: '/h/.conveyor', namespace: 'USER' });
  });

  it('--force-local does not even read a missing -R file', () => {
    expect(mode({ forceLocal: true, remoteSettingsFile: 'missing.py' })).toMatchObject({ kind: 'local' });
  });

  it('-n overrides the namespace in both modes, over the file and CLI_NAMESPACE', () => {
    expect(mode({ namespace: 'ONE', remoteSettingsFile: 'r.py' })).toMatchObject({ namespace: 'ONE' });
    expect(mode({ namespace: 'ONE', env: { CLI_URL: 'http://u', CLI_NAMESPACE: 'NS' } })).toMatchObject({ namespace: 'ONE' });
    expect(mode({ namespace: 'ONE', env: { CLI_NAMESPACE: 'NS' } })).toMatchObject({ kind: 'local', namespace: 'ONE' });
    expect(mode({ env: { CLI_NAMESPACE: 'NS' } })).toMatchObject({ kind: 'local', namespace: 'NS' });
  });

  it('fails clearly when -R or CLI_SETTINGS names a missing file or one without a url', () => {
    expect(() => mode({ remoteSettingsFile: 'missing.py' })).toThrow(/Cannot read the settings file .*missing\.py: no such file/);
    expect(() => mode({ remoteSettingsFile: 'local.py' })).toThrow(/-R local\.py: .* defines no REMOTE_SETTINGS/);
    expect(() => mode({ env: { CLI_SETTINGS: 'local.py' } })).toThrow(/CLI_SETTINGS=local\.py: .* defines no REMOTE_SETTINGS/);
    expect(() => mode({ env: { CLI_SETTINGS: 'missing.py' } })).toThrow(/no such file/);
  });

  it('fails when the -m settings file is missing (in local mode too)', () => {
    expect(() => mode({ migrateFile: 'missing.py' })).toThrow(/Cannot read the settings file .*missing\.py/);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

let home: string;
const saved = { ...process.env };

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'conveyor-config-'));
  for (const name of Object.keys(process.env)) if (name.startsWith('CONVEYOR_')) delete process.env[name];
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(home, { recursive: true, force: true });
});

describe('TLS and login settings', () => {
  it('default to plain HTTP and 5 / 20 failures, 30 s doubling up to 15 min', () => {
    expect(loadConfig({ home })).toMatchObject({
      tlsCert: '',
      tlsKey: '',
      loginFailuresPerUser: 5,
      loginFailuresPerAddress: 20,
      loginLockoutMs: 30_000,
      loginLockoutMaxMs: 900_000,
    });
  });

  it('read relative certificate paths of conveyor.yaml from the home; variables and overrides win', () => {
    writeFileSync(join(home, 'conveyor.yaml'), 'tlsCert: tls/server.crt\ntlsKey: /etc/conveyor/server.key\nloginFailuresPerUser: 3\n');
    expect(loadConfig({ home })).toMatchObject({ tlsCert: join(home, 'tls', 'server.crt'), tlsKey: '/etc/conveyor/server.key', loginFailuresPerUser: 3 });
    process.env['CONVEYOR_TLS_CERT'] = '/srv/a.crt';
    process.env['CONVEYOR_TLS_KEY'] = '/srv/a.key';
    expect(loadConfig({ home })).toMatchObject({ tlsCert: '/srv/a.crt', tlsKey: '/srv/a.key' });
    expect(loadConfig({ home, tlsCert: '/flag.crt', tlsKey: '/flag.key' })).toMatchObject({ tlsCert: '/flag.crt', tlsKey: '/flag.key' });
  });

  it('refuse a certificate without a key (and the reverse) with the three ways to set them', () => {
    expect(() => loadConfig({ home, tlsCert: '/a.crt' })).toThrow('TLS needs both a certificate and a key; only tlsCert is set');
    expect(() => loadConfig({ home, tlsKey: '/a.key' })).toThrow('TLS needs both a certificate and a key; only tlsKey is set');
  });

  it('refuse login limits below 1', () => {
    writeFileSync(join(home, 'conveyor.yaml'), 'loginLockoutMs: 0\n');
    expect(() => loadConfig({ home })).toThrow('loginLockoutMs must be a whole number of at least 1, got 0');
  });
});

describe('shutdown time', () => {
  it('defaults to 20 s; conveyor.yaml, CONVEYOR_SHUTDOWN_TIMEOUT_MS and the flag override it in that order', () => {
    expect(loadConfig({ home }).shutdownTimeoutMs).toBe(20_000);
    writeFileSync(join(home, 'conveyor.yaml'), 'shutdownTimeoutMs: 5000\n');
    expect(loadConfig({ home }).shutdownTimeoutMs).toBe(5_000);
    process.env['CONVEYOR_SHUTDOWN_TIMEOUT_MS'] = '7000';
    expect(loadConfig({ home }).shutdownTimeoutMs).toBe(7_000);
    expect(loadConfig({ home, shutdownTimeoutMs: 9_000 }).shutdownTimeoutMs).toBe(9_000);
  });

  it('refuses a value that is not a number of milliseconds above 0', () => {
    expect(() => loadConfig({ home, shutdownTimeoutMs: 0 })).toThrow('shutdownTimeoutMs must be a number of milliseconds above 0, got 0');
    expect(() => loadConfig({ home, shutdownTimeoutMs: Number('soon') })).toThrow('shutdownTimeoutMs must be a number of milliseconds above 0, got NaN');
  });
});

describe('export format', () => {
  it("defaults to the spec's shape; conveyor.yaml, then CONVEYOR_EXPORT_FORMAT, switch it to IoP's", () => {
    expect(loadConfig({ home }).exportFormat).toBe('spec');
    writeFileSync(join(home, 'conveyor.yaml'), 'exportFormat: iop\n');
    expect(loadConfig({ home }).exportFormat).toBe('iop');
    process.env['CONVEYOR_EXPORT_FORMAT'] = 'spec';
    expect(loadConfig({ home }).exportFormat).toBe('spec');
  });

  it('refuses any other value, naming the two allowed', () => {
    process.env['CONVEYOR_EXPORT_FORMAT'] = 'xml';
    expect(() => loadConfig({ home })).toThrow(/exportFormat must be spec or iop, got "xml"/);
  });
});

describe('SQL hosts', () => {
  it('are none by default; conveyor.yaml names them per namespace, files read from the home', () => {
    expect(loadConfig({ home }).sqlHosts).toEqual({});
    writeFileSync(join(home, 'conveyor.yaml'), 'sqlHosts:\n  USER:\n    default: data/ref.db\n    billing: postgres://reader@db/billing\n');
    expect(loadConfig({ home }).sqlHosts).toEqual({
      USER: { default: { kind: 'sqlite', path: join(home, 'data', 'ref.db') }, billing: { kind: 'postgres', url: 'postgres://reader@db/billing' } },
    });
  });

  it('refuses a malformed sqlHosts, naming the file', () => {
    writeFileSync(join(home, 'conveyor.yaml'), 'sqlHosts:\n  USER: ref.db\n');
    expect(() => loadConfig({ home })).toThrow(`${join(home, 'conveyor.yaml')}: sqlHosts .USER must map connection names to a database, got "ref.db"`);
  });
});

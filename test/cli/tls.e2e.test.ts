/**
 * TLS served by Conveyor itself, end to end: a real `conveyor serve --tls-cert --tls-key` with
 * certificates made here. The real `cli` in remote mode (CLI_VERIFY_SSL=false, an untrusted
 * certificate, a private CA through NODE_EXTRA_CA_CERTS), Python `requests` with verify=False (what
 * the IoP client does with IOP_VERIFY_SSL=0), the portal and metrics over HTTPS, SIGHUP reloading a
 * renewed certificate, and the warnings of the server and `conveyor doctor` without TLS.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { privateCaPair, selfSignedPair, type CertificatePair } from '../support/tls-certificates.ts';
import { adminPassword, cleanEnv, repositoryRoot, runCli, temporaryFolder, waitForOutput } from './support/cli-harness.ts';

const folder = temporaryFolder('conveyor-tls-');
const servers: ServerProcess[] = [];
let selfSigned: CertificatePair;
let live: CertificatePair;
let server: ServerProcess;

async function serve(name: string, args: string[]): Promise<ServerProcess> {
  const started = await startServerProcess(join(folder, name), args, { CONVEYOR_ADMIN_PASSWORD: adminPassword });
  servers.push(started);
  return started;
}

/** The SHA-256 fingerprint of the certificate a new TLS connection to `url` is shown. */
function presentedFingerprint(url: string): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect({ host: target.hostname, port: Number(target.port), rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

function cli(args: string[], extra: Record<string, string>) {
  return runCli(args, { env: cleanEnv({ CLI_USERNAME: 'admin', CLI_PASSWORD: adminPassword, ...extra }) });
}

function conveyor(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/server/main.ts', ...args], { cwd: repositoryRoot, env: cleanEnv() }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  mkdirSync(join(folder, 'certs'), { mode: 0o700 });
  selfSigned = selfSignedPair(join(folder, 'certs'), 'first');
  live = { cert: join(folder, 'certs', 'live.crt'), key: join(folder, 'certs', 'live.key') };
  copyFileSync(selfSigned.cert, live.cert);
  copyFileSync(selfSigned.key, live.key);
  server = await serve('home', ['--tls-cert', live.cert, '--tls-key', live.key]);
});

afterAll(async () => {
  for (const running of servers) await running.kill();
  rmSync(folder, { recursive: true, force: true });
});

describe('a server with a certificate and key', () => {
  it('announces an https URL and no plain-text warning', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output()).not.toContain('without TLS');
  });

  it('serves the cli in remote mode when CLI_VERIFY_SSL=false', async () => {
    const result = await cli(['-l'], { CLI_URL: server.url, CLI_VERIFY_SSL: 'false' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('makes the cli fail with an error that says the certificate is not trusted', async () => {
    const result = await cli(['-l'], { CLI_URL: server.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The TLS certificate of ${server.url} is not trusted`);
    expect(result.stderr).toContain('CLI_VERIFY_SSL=false');
  });

  it('answers Python requests with verify=False (the IoP client with IOP_VERIFY_SSL=0): API, portal and metrics', async () => {
    const script = [
      'import json, sys, warnings, requests',
      'warnings.simplefilter("ignore")',
      'url, password = sys.argv[1], sys.argv[2]',
      'out = {}',
      'for path in ("/api/iop/status", "/api/iop/whoami", "/portal", "/metrics", "/api/atelier/v1/USER/doc/Demo.Missing.cls"):',
      '    reply = requests.get(url + path, auth=("admin", password), verify=False, timeout=30, allow_redirects=False)',
      '    out[path] = [reply.status_code, reply.headers.get("content-type", "")]',
      'out["status"] = requests.get(url + "/api/iop/status", auth=("admin", password), verify=False, timeout=30).json()',
      'print(json.dumps(out))',
    ].join('\n');
    const output = await new Promise<string>((resolve, reject) => {
      execFile('python3', ['-c', script, server.url, adminPassword], (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    const replies = JSON.parse(output) as Record<string, unknown>;
    expect(replies['/api/iop/status']).toEqual([200, 'application/json; charset=utf-8']);
    expect(replies['/api/iop/whoami']).toEqual([200, 'application/json; charset=utf-8']);
    // The portal's static files answer there (a redirect to /portal/); class documents too.
    expect((replies['/portal'] as [number, string])[0]).toBe(302);
    const [documentStatus, documentType] = replies['/api/atelier/v1/USER/doc/Demo.Missing.cls'] as [number, string];
    expect([documentStatus >= 400 && documentStatus < 500, documentType]).toEqual([true, 'application/json; charset=utf-8']);
    expect(replies['/metrics']).toEqual([200, expect.stringContaining('text/plain')]);
    expect(replies['status']).toEqual({ production: '', status: 'stopped' });
  });

  it('reloads a renewed certificate on SIGHUP and keeps serving', async () => {
    const renewed = selfSignedPair(join(folder, 'certs'), 'renewed');
    expect(await presentedFingerprint(server.url)).toBe(new X509Certificate(readFileSync(selfSigned.cert)).fingerprint256);
    copyFileSync(renewed.cert, live.cert);
    copyFileSync(renewed.key, live.key);
    server.child.kill('SIGHUP');
    await waitForOutput(server.output, 'SIGHUP received: reloaded the TLS certificate');
    expect(await presentedFingerprint(server.url)).toBe(new X509Certificate(readFileSync(renewed.cert)).fingerprint256);
    const result = await cli(['-l'], { CLI_URL: server.url, CLI_VERIFY_SSL: 'false' });
    expect(result.code).toBe(0);
  });
});

describe('a server with a certificate of a private CA', () => {
  it('is trusted by the cli through NODE_EXTRA_CA_CERTS', async () => {
    mkdirSync(join(folder, 'ca'), { mode: 0o700 });
    const signed = privateCaPair(join(folder, 'ca'));
    const caServer = await serve('ca-home', ['--tls-cert', signed.cert, '--tls-key', signed.key]);
    const untrusted = await cli(['-l'], { CLI_URL: caServer.url });
    expect(untrusted.stderr).toContain('is not trusted');
    const trusted = await cli(['-l'], { CLI_URL: caServer.url, NODE_EXTRA_CA_CERTS: signed.ca });
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
  });
});

describe('without TLS', () => {
  it('a server listening beyond the loopback warns at start', async () => {
    const open = await serve('open-home', ['--host', '0.0.0.0']);
    expect(open.output()).toContain('Warning: The API listens on 0.0.0.0 without TLS: passwords (HTTP Basic) and data cross the network in clear text');
  });

  it('conveyor doctor says so; with TLS it reports the certificate; a home others can write is a problem', async () => {
    const home = join(folder, 'doctor-home');
    const plain = await conveyor(['doctor', '--home', home, '--host', '0.0.0.0']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('warning The API listens on 0.0.0.0 without TLS');

    const secure = await conveyor(['doctor', '--home', home, '--host', '0.0.0.0', '--tls-cert', selfSigned.cert, '--tls-key', selfSigned.key]);
    // The test's certificate lives a day: the doctor reads it and asks for a renewal.
    expect(secure.stdout).toContain(`warning The TLS certificate ${selfSigned.cert} expires on `);
    expect(secure.stdout).not.toContain('without TLS');
    expect(secure.code).toBe(0);

    mkdirSync(home, { recursive: true });
    chmodSync(home, 0o777);
    const unsafe = await conveyor(['doctor', '--home', home]);
    expect(unsafe.code).toBe(1);
    expect(unsafe.stdout).toContain(`problem Other users can write the home ${home} (mode 777): fix it with chmod 700 ${home}`);
  });
});

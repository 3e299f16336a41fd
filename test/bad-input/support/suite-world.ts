/**
 * The world the bad inputs are thrown at: one real `conveyor serve` on a fresh home, with a migrated
 * production running, a message and its session, a lookup table, a schema, a transform, a class
 * document and a user of each role. Everything is set up through the API, as a user would.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import * as b from './baselines.ts';
import type { Identity } from './bad-cases.ts';
import { basicHeader, rawCall, type RawReply } from './raw-http.ts';

const fixture = fileURLToPath(new URL('../fixtures/relay', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const bodyLimit = 1_048_576;
const admin = { name: 'admin', password: 'bad-input-admin-pw' };
/** A user only ever sent with a wrong password, so login throttling can never lock out the others. */
const lockedOut = { name: 'bi-locked', password: 'bi-locked-pw' };

export interface World {
  server: ServerProcess;
  home: string;
  state: b.SuiteState;
  /** Paths of this machine that must never appear in a reply. */
  serverPaths: string[];
  call(method: string, path: string, body?: unknown, who?: Identity): Promise<RawReply>;
  headersOf(who: Identity): { headers: Record<string, string>; localAddress?: string };
  /** Puts back what a mishandled bad input may have changed: the running production and the fixtures. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

async function packageFiles(): Promise<Array<{ name: string; data: string }>> {
  const entries = (await readdir(fixture, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
  return Promise.all(
    entries.map(async (entry) => ({
      name: relative(fixture, join(entry.parentPath, entry.name)),
      data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
    })),
  );
}

let nextAddress = 0;
/** Refused logins come from a new loopback address each time (127.0.0.2 …), never the suite's own. */
function strangerAddress(): string {
  nextAddress = (nextAddress % 250) + 1;
  return `127.0.0.${nextAddress + 1}`;
}

function headersOf(who: Identity): { headers: Record<string, string>; localAddress?: string } {
  switch (who) {
    case 'admin':
      return { headers: basicHeader(admin.name, admin.password) };
    case 'operator':
    case 'viewer':
      return { headers: basicHeader(b.users[who].name, b.users[who].password) };
    case 'none':
      return { headers: {}, localAddress: strangerAddress() };
    case 'empty':
      return { headers: { authorization: 'Basic Og==' }, localAddress: strangerAddress() };
    case 'malformed':
      return { headers: { authorization: 'Bearer bad-input-token' }, localAddress: strangerAddress() };
    case 'wrong-password':
      return { headers: basicHeader(lockedOut.name, 'not-the-password'), localAddress: strangerAddress() };
    case 'huge-password':
      return { headers: basicHeader(lockedOut.name, 'p'.repeat(8192)), localAddress: strangerAddress() };
    case 'unknown-user':
      // A new name each time: a throttled name would answer 429 instead of showing the 401 path.
      return { headers: basicHeader(`no-such-user-${nextAddress}-${Date.now()}`, 'whatever'), localAddress: strangerAddress() };
  }
}

async function expectOk(reply: Promise<RawReply>, what: string): Promise<RawReply> {
  const answer = await reply;
  if (answer.status !== 200 && answer.status !== 201) throw new Error(`${what} failed: ${answer.status} ${answer.text.slice(0, 500)}`);
  return answer;
}

export async function startWorld(): Promise<World> {
  const home = tempDir('conveyor-bad-input-');
  const server = await startServerProcess(home.path, [], {
    CONVEYOR_ADMIN_USER: admin.name,
    CONVEYOR_ADMIN_PASSWORD: admin.password,
    CONVEYOR_BODY_LIMIT: String(bodyLimit),
  });
  const call = (method: string, path: string, body?: unknown, who: Identity = 'admin') => {
    const { headers, localAddress } = headersOf(who);
    return rawCall(server.url, {
      method,
      path,
      headers,
      ...(localAddress ? { localAddress } : {}),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
  const files = await packageFiles();
  await expectOk(call('PUT', '/api/iop/migrate', { package: 'relay', body: files }), 'migrating the fixture');
  const fixtures = async (): Promise<void> => {
    for (const user of [...Object.values(b.users), lockedOut]) {
      const role = user === b.users.viewer ? 'viewer' : 'operator';
      await expectOk(call('PUT', `/api/iop/users/${user.name}`, { password: user.password, role }), `creating the user ${user.name}`);
    }
    await expectOk(call('PUT', '/api/iop/default', { production: b.production }), 'setting the default');
    const status = (await expectOk(call('GET', '/api/iop/status'), 'reading the status')).json as { status: string };
    if (status.status !== 'running') await expectOk(call('POST', '/api/iop/start', { production: b.production }), 'starting the production');
    await expectOk(call('POST', '/api/iop/component/start', { component: b.item }), 'starting the item');
    await expectOk(call('PUT', `/api/iop/lookups/${b.lookupTable}`, { entries: { a: 'Alpha' } }), 'storing the lookup table');
    await expectOk(call('POST', '/api/iop/schemas/import', { package: 'bi', name: b.schemaName, schema: b.lookupSchema }), 'importing the schema');
    await expectOk(call('PUT', `/api/iop/transforms/${b.transformName}`, { source: b.transformSource }), 'storing the transform');
    await expectOk(
      call('PUT', `/api/atelier/v1/USER/doc/${b.documentName}?ignoreConflict=1`, { enc: false, content: b.documentLines }),
      'storing the class document',
    );
  };
  await fixtures();
  const run = (
    await expectOk(call('POST', '/api/iop/test-run', { target: b.item, classname: b.requestClass, body: { text: 'hello' }, restart: false }), 'a test run')
  ).json as { session_id: number };
  const found = (await expectOk(call('GET', `/api/iop/messages?target=${b.item}&limit=5`), 'finding the message')).json as {
    messages: Array<{ id: number; sessionId: number }>;
  };
  const request = found.messages.find((message) => message.sessionId === run.session_id);
  if (!request) throw new Error(`the test run's request is not among the messages: ${JSON.stringify(found)}`);
  const definition = (await expectOk(call('GET', `/api/iop/definition?production=${b.production}`), 'reading the definition')).json;
  const lookupXml = ((await expectOk(call('GET', `/api/iop/lookups/export?table=${b.lookupTable}`), 'exporting the lookups')).json as { xml: string }).xml;
  return {
    server,
    home: home.path,
    state: { packageFiles: files, definition, lookupXml, messageId: request.id, sessionId: run.session_id },
    serverPaths: [home.path, repoRoot.replace(/\/$/, ''), '/work/'],
    call,
    headersOf,
    restore: fixtures,
    async close() {
      await server.kill();
      home.remove();
    },
  };
}

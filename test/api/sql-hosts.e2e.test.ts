/**
 * SQL hosts as a user meets them (issue 20): a real server whose conveyor.yaml names the namespace's
 * read-only connections (`sqlHosts`), a transform with an embedded SELECT run from the test API
 * (`POST /transforms/run`, its `sqlHost`) and in a production (a transform process and a routing
 * rule's send, on the item's `SqlHost`), on an SQLite file and on PostgreSQL. Without the key there
 * is no connection at all, and the error names the one missing.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, describePg, dropSchema, pgUrl, uniqueSchema } from '../../src/store/postgres/pg-test-support.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

/** Ens.StringRequest (a patient id) → the patient's name and ward, read with `<sql>` from `table`. */
const wardTransform = (
  table: string,
): string => `<transform sourceClass='Ens.StringRequest' targetClass='IOP.Message' targetDocType='demo.Ward' create='new' language='objectscript'>
<assign value='source.StringValue' property='id' action='set'/>
<sql><![CDATA[SELECT name, ward INTO :name, :ward FROM ${table} WHERE id = :id]]></sql>
<assign value='SQLCODE' property='target.{sqlcode}' action='set'/>
<if condition='SQLCODE=0'><true>
<assign value='name' property='target.{name}' action='set'/>
<assign value='ward' property='target.{ward}' action='set'/>
</true></if>
</transform>`;

async function startWithSqlHosts(home: string, hosts: Record<string, string> | null): Promise<ServerProcess> {
  mkdirSync(home, { recursive: true });
  if (hosts !== null) {
    const lines = Object.entries(hosts).map(([name, target]) => `    ${name}: ${JSON.stringify(target)}`);
    writeFileSync(join(home, 'conveyor.yaml'), ['sqlHosts:', '  USER:', ...lines, ''].join('\n'));
  }
  return startServerProcess(home);
}

interface RunReply {
  status: string;
  target: unknown;
  errors: string[];
}

async function run(server: ServerProcess, body: Record<string, unknown>): Promise<RunReply> {
  const reply = await server.local('POST', '/api/iop/transforms/run', body);
  expect(reply.status, reply.text).toBe(200);
  return reply.json as RunReply;
}

async function testCall(server: ServerProcess, target: string, id: string): Promise<{ status: number; text: string; body?: unknown }> {
  const reply = await server.local('POST', '/api/iop/test', { target, classname: 'Ens.StringRequest', body: id, restart: false });
  if (reply.status !== 200) return { status: reply.status, text: reply.text };
  const body = (reply.json as { body: string }).body;
  // A routing engine answers nothing: an empty body.
  return { status: 200, text: reply.text, body: body === '' ? null : (JSON.parse(body) as unknown) };
}

const item = (name: string, classname: string, settings: Array<[target: 'Host' | 'Adapter', name: string, value: string]>) => ({
  name,
  classname,
  settings: settings.map(([target, setting, value]) => ({ target, name: setting, value })),
});

describe('SQL hosts: none by default', () => {
  const dir = tempDir('conveyor-sql-none-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startWithSqlHosts(join(dir.path, 'home'), null);
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  it('runs no <sql> until conveyor.yaml names a connection, and says which is missing', async () => {
    const reply = await run(server, { source: wardTransform('patients'), classname: 'Ens.StringRequest', json: { StringValue: 'p7' } });
    expect(reply.status).toBe('error');
    expect(reply.errors.join('\n')).toContain('SQL host default is not configured in namespace USER (it has none; see sqlHosts in conveyor.yaml)');
  });
});

describe('SQL hosts on an SQLite file', () => {
  const dir = tempDir('conveyor-sql-sqlite-');
  const home = join(dir.path, 'home');
  let server: ServerProcess;
  beforeAll(async () => {
    mkdirSync(join(home, 'data'), { recursive: true });
    const db = new Database(join(home, 'data', 'reference.db'));
    db.exec("CREATE TABLE patients (id TEXT PRIMARY KEY, name TEXT, ward TEXT); INSERT INTO patients VALUES ('p7', 'Ada', 'B2');");
    db.close();
    // A relative file is in the home.
    server = await startWithSqlHosts(home, { default: 'data/reference.db' });
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  it('answers <sql> in a test run and in a production, and names an unknown connection with the known ones', async () => {
    expect((await server.local('PUT', '/api/iop/transforms/Demo.Ward', { source: wardTransform('patients') })).status).toBe(200);
    expect(await run(server, { name: 'Demo.Ward', json: { StringValue: 'p7' } })).toMatchObject({
      status: 'ok',
      target: { sqlcode: 0, name: 'Ada', ward: 'B2' },
    });
    expect(await run(server, { name: 'Demo.Ward', json: { StringValue: 'p9' } })).toMatchObject({ status: 'ok', target: { sqlcode: 100 } });
    const unknown = await run(server, { name: 'Demo.Ward', json: { StringValue: 'p7' }, sqlHost: 'billing' });
    expect(unknown.status).toBe('error');
    expect(unknown.errors.join('\n')).toContain('SQL host billing is not configured in namespace USER (it has default; see sqlHosts in conveyor.yaml)');

    const definition = {
      name: 'Demo.Sql',
      items: [
        item('Ward', 'Conveyor.Process.Transform', [['Host', 'Transform', 'Demo.Ward']]),
        item('Billing', 'Conveyor.Process.Transform', [
          ['Host', 'Transform', 'Demo.Ward'],
          ['Host', 'SqlHost', 'billing'],
        ]),
      ],
    };
    expect((await server.local('PUT', '/api/iop/definition', { definition })).status).toBe(200);
    expect((await server.local('POST', '/api/iop/start', { production: 'Demo.Sql' })).status).toBe(200);
    expect(await testCall(server, 'Ward', 'p7')).toMatchObject({ status: 200, body: { sqlcode: 0, name: 'Ada', ward: 'B2' } });
    const billing = await testCall(server, 'Billing', 'p7');
    expect(billing.status).toBe(500);
    expect(billing.text).toContain('SQL host billing is not configured in namespace USER');
    expect((await server.local('POST', '/api/iop/stop', {})).status).toBe(200);
  }, 60_000);
});

describePg('SQL hosts on PostgreSQL', () => {
  const dir = tempDir('conveyor-sql-pg-');
  const home = join(dir.path, 'home');
  const schema = uniqueSchema('sqlhost');
  const delivered = join(dir.path, 'delivered.jsonl');
  let server: ServerProcess;
  beforeAll(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    await adminQuery(`CREATE TABLE ${schema}.patients (id text PRIMARY KEY, name text, ward text)`);
    await adminQuery(`INSERT INTO ${schema}.patients VALUES ('p7', 'Grace', 'C3')`);
    await adminQuery(`CREATE SEQUENCE ${schema}.counter`);
    server = await startWithSqlHosts(home, { reporting: pgUrl });
  });
  afterAll(async () => {
    await server.kill();
    await dropSchema(schema);
    dir.remove();
  });

  it('answers <sql> in a test run, in a transform process and in a routing rule send, read-only', async () => {
    expect((await server.local('PUT', '/api/iop/transforms/Demo.Ward', { source: wardTransform(`${schema}.patients`) })).status).toBe(200);
    expect(await run(server, { name: 'Demo.Ward', json: { StringValue: 'p7' }, sqlHost: 'reporting' })).toMatchObject({
      status: 'ok',
      target: { sqlcode: 0, name: 'Grace', ward: 'C3' },
    });
    // The run names no host: `default`, which this namespace does not have.
    expect((await run(server, { name: 'Demo.Ward', json: { StringValue: 'p7' } })).errors.join('\n')).toContain(
      'SQL host default is not configured in namespace USER (it has reporting; see sqlHosts in conveyor.yaml)',
    );
    // A SELECT that writes (a sequence step) is refused by the read-only transaction.
    const writer = wardTransform(`${schema}.patients`).replace(
      `SELECT name, ward INTO :name, :ward FROM ${schema}.patients WHERE id = :id`,
      `SELECT nextval('${schema}.counter') INTO :name FROM ${schema}.patients WHERE id = :id`,
    );
    const refused = await run(server, { source: writer, json: { StringValue: 'p7' }, sqlHost: 'reporting' });
    expect([refused.status, refused.errors.join('\n')]).toEqual(['error', expect.stringMatching(/read-only transaction/)]);
    expect(await adminQuery(`SELECT last_value::int AS n, is_called FROM ${schema}.counter`)).toEqual([{ n: 1, is_called: false }]);

    const rule = `Class Demo.WardRules Extends Ens.Rule.Definition
{
XData RuleDefinition [ XMLNamespace = "http://www.intersystems.com/rule" ]
{
<ruleDefinition alias="" context="EnsLib.MsgRouter.RoutingEngine" production="Demo.PgSql">
<ruleSet name="wards" effectiveBegin="" effectiveEnd="">
<rule name="all"><when condition="1"><send transform="Demo.Ward" target="Delivered"></send></when></rule>
</ruleSet>
</ruleDefinition>
}
}
`;
    expect((await server.local('PUT', '/api/iop/rules/Demo.WardRules', { source: rule })).status).toBe(200);
    const definition = {
      name: 'Demo.PgSql',
      items: [
        item('Ward', 'Conveyor.Process.Transform', [
          ['Host', 'Transform', 'Demo.Ward'],
          ['Host', 'SqlHost', 'reporting'],
        ]),
        item('Router', 'EnsLib.MsgRouter.RoutingEngine', [
          ['Host', 'BusinessRuleName', 'Demo.WardRules'],
          ['Host', 'SqlHost', 'reporting'],
        ]),
        item('Delivered', 'Conveyor.Operation.Echo', [['Host', 'FilePath', delivered]]),
      ],
    };
    expect((await server.local('PUT', '/api/iop/definition', { definition })).status).toBe(200);
    expect((await server.local('POST', '/api/iop/start', { production: 'Demo.PgSql' })).status).toBe(200);
    expect(await testCall(server, 'Ward', 'p7')).toMatchObject({ status: 200, body: { sqlcode: 0, name: 'Grace', ward: 'C3' } });
    expect((await testCall(server, 'Router', 'p7')).status).toBe(200);
    await eventually(() => existsSync(delivered) && readFileSync(delivered, 'utf8').includes('Grace'), 'the routed message delivered');
    const line = JSON.parse(readFileSync(delivered, 'utf8').trim().split('\n')[0]!) as { classname: string; data: string };
    expect([line.classname, JSON.parse(line.data) as unknown]).toEqual(['demo.Ward', { sqlcode: 0, name: 'Grace', ward: 'C3' }]);
    expect((await server.local('POST', '/api/iop/stop', {})).status).toBe(200);
    expect(await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.patients`)).toEqual([{ n: 1 }]);
  }, 60_000);
});

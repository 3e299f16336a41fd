/**
 * `<sql>` in transforms through the engine: the same transform runs on the namespace's SQL hosts in
 * a production (the item's SqlHost setting) and in a test run (its sqlHost), and says which
 * connection is missing when it is not configured.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newItem, newProduction } from '../../core/production.ts';
import type { NamespaceOperations } from '../namespace-operations.ts';
import { freshEngineForEachTest } from '../../../test/support/engine-fixture.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { SqlHosts } from './sql-hosts.ts';

const lookupPatient = `<transform sourceClass='Ens.StringRequest' targetClass='IOP.Message' targetDocType='demo.Patient' create='new' language='objectscript'>
<assign value='source.StringValue' property='id' action='set'/>
<sql><![CDATA[SELECT name, ward INTO :name, :ward FROM patients WHERE id = :id]]></sql>
<assign value='SQLCODE' property='target.{sqlcode}' action='set'/>
<if condition='SQLCODE=0'><true>
<assign value='name' property='target.{name}' action='set'/>
<assign value='ward' property='target.{ward}' action='set'/>
</true></if>
</transform>`;

describe('<sql> in transforms on the namespace SQL hosts', () => {
  const data = tempDir();
  const files = { main: join(data.path, 'main.db'), archive: join(data.path, 'archive.db') };
  beforeAll(() => {
    for (const [file, name] of [
      [files.main, 'Ada'],
      [files.archive, 'Grace'],
    ] as const) {
      const db = new Database(file);
      db.exec(`CREATE TABLE patients (id TEXT PRIMARY KEY, name TEXT, ward TEXT); INSERT INTO patients VALUES ('p7', '${name}', 'B2');`);
      db.close();
    }
  });
  afterAll(() => data.remove());

  const hosts = new SqlHosts({
    USER: { default: { kind: 'sqlite', path: files.main }, archive: { kind: 'sqlite', path: files.archive } },
  });
  afterAll(() => hosts.close());
  let user: NamespaceOperations;
  freshEngineForEachTest({ drainTimeoutMs: 1000, graceMs: 500, sqlHosts: hosts }, (fresh) => ({ user } = fresh));

  it('runs in a test run on the default host, or on the one the run names', async () => {
    await user.dtl.putTransform('Demo.Patient', lookupPatient);
    expect((await user.dtl.runTransform({ name: 'Demo.Patient' }, { json: { StringValue: 'p7' } })).target).toEqual({ sqlcode: 0, name: 'Ada', ward: 'B2' });
    expect((await user.dtl.runTransform({ name: 'Demo.Patient' }, { json: { StringValue: 'p8' } })).target).toEqual({ sqlcode: 100 });
    expect((await user.dtl.runTransform({ name: 'Demo.Patient' }, { json: { StringValue: 'p7' }, sqlHost: 'archive' })).target).toMatchObject({
      name: 'Grace',
    });
  });

  it('names the missing connection in the run result', async () => {
    const run = await user.dtl.runTransform({ source: lookupPatient }, { json: { StringValue: 'p7' }, sqlHost: 'billing' });
    expect(run.status).toBe('error');
    expect(run.errors.join('\n')).toContain('SQL host billing is not configured in namespace USER (it has default, archive; see sqlHosts in conveyor.yaml)');
  });

  it('runs in a production on the SQL host of the item SqlHost setting (default: default)', async () => {
    await user.dtl.putTransform('Demo.Patient', lookupPatient);
    const transformItem = (name: string, sqlHost: string | null): ReturnType<typeof newItem> =>
      newItem(name, 'Conveyor.Process.Transform', {
        settings: [
          { target: 'Host', name: 'Transform', value: 'Demo.Patient' },
          ...(sqlHost === null ? [] : [{ target: 'Host' as const, name: 'SqlHost', value: sqlHost }]),
        ],
      });
    await user.putDefinition(
      newProduction('Demo.Sql', [transformItem('Main', null), transformItem('Archive', 'archive'), transformItem('Billing', 'billing')]),
    );
    await user.start('Demo.Sql');
    expect(JSON.parse((await user.test({ target: 'Main', classname: 'Ens.StringRequest', body: 'p7' })).body)).toEqual({ sqlcode: 0, name: 'Ada', ward: 'B2' });
    expect(JSON.parse((await user.test({ target: 'Archive', classname: 'Ens.StringRequest', body: 'p7' })).body)).toMatchObject({ name: 'Grace' });
    const failed = await user.test({ target: 'Billing', classname: 'Ens.StringRequest', body: 'p7' }).catch((e: unknown) => e as Error);
    expect(String(failed)).toContain('SQL host billing is not configured in namespace USER');
    await user.stop();
  });
});

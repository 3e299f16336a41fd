/**
 * Production-level settings (ShutdownTimeout, UpdateTimeout, AlertNotificationRecipients…) end to end:
 * a real `conveyor serve` answering IoP's export form, a real python3 running IoP 4's DSL (plan, apply,
 * verify, from_iris) over the home's socket; then the same definition read in the structured shape
 * (GET /definition), kept by a PUT that leaves `settings` out, and refused when malformed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultInterpreter, pythonSdkDir } from '../../src/bridge/index.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const fixtures = fileURLToPath(new URL('../fixtures/python/iop4', import.meta.url));
const production = 'Demo.Iop4ProductionSettings';

describe('production-level settings through the IoP 4 DSL and the API', () => {
  const dir = tempDir('conveyor-iop4-production-settings-');
  const home = join(dir.path, 'home');
  let server: ServerProcess;

  beforeAll(async () => {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    server = await startServerProcess(home, [], { CONVEYOR_ADMIN_PASSWORD: 'production-settings-secret', CONVEYOR_EXPORT_FORMAT: 'iop' });
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    dir.remove();
  });

  it('applies them with a plan that verifies, answers them on GET /export in IoP form, and changes them', () => {
    const work = join(dir.path, 'work');
    mkdirSync(work);
    const run = spawnSync(defaultInterpreter(), [join(fixtures, 'production_settings_drive.py')], {
      cwd: fixtures,
      env: { ...process.env, PYTHONPATH: pythonSdkDir, IOP_URL: '', IOP_SETTINGS: '', CONVEYOR_HOME: home, IOP4_WORK: work },
      encoding: 'utf8',
      timeout: 180_000,
    });
    const out = `${run.stdout}${run.stderr}`;
    expect(run.status, out).toBe(0);
    const line = out.split('\n').find((text) => text.startsWith('REPORT '));
    expect(line, out).toBeDefined();
    const report = JSON.parse(line!.slice('REPORT '.length)) as Record<string, unknown>;
    expect(report['first']).toEqual({
      plan: ['production.alert_notification_recipients', 'production.shutdown_timeout', 'production.testing_enabled'],
      applied: 3,
      failed: 0,
      verify: true,
    });
    expect(report['export_first']).toEqual({
      [production]: {
        '@Name': production,
        '@TestingEnabled': 'true',
        '@LogGeneralTraceEvents': 'false',
        Description: '',
        ActorPoolSize: '2',
        Setting: [
          { '@Name': 'ShutdownTimeout', '#text': '300' },
          { '@Name': 'AlertNotificationRecipients', '#text': 'ops@example.com' },
        ],
      },
    });
    expect(report['read_back']).toEqual({ shutdown_timeout: '300', update_timeout: '10', alert_notification_recipients: 'ops@example.com' });
    expect(report['second']).toEqual({ plan: ['production.shutdown_timeout', 'production.update_timeout'], applied: 2, failed: 0, verify: true });
    expect((report['export_second'] as Record<string, { Setting: unknown }>)[production]?.Setting).toEqual([
      { '@Name': 'UpdateTimeout', '#text': '30' },
      { '@Name': 'AlertNotificationRecipients', '#text': 'ops@example.com' },
    ]);
    expect(report['diff_after_second']).toBe(false);
  }, 240_000);

  it('plans a change of them on the server as IoP names it, and a server-side rollback restores them', async () => {
    const exported = (await server.local('GET', `/api/iop/export?production=${production}`)).json as Record<string, Record<string, unknown>>;
    const desired = { [production]: { ...exported[production], Setting: { '@Target': 'Production', '@Name': 'ShutdownTimeout', '#text': '45' } } };
    const plan = (await server.local('POST', '/api/iop/production/plan', { definition: desired })).json as { operations: Array<Record<string, unknown>> };
    expect(plan.operations.map(({ op_type, path, before, after }) => ({ op_type, path, before, after }))).toEqual([
      { op_type: 'set_production_field', path: 'production.shutdown_timeout', before: '120', after: '45' },
      { op_type: 'set_production_field', path: 'production.update_timeout', before: '30', after: '10' },
      { op_type: 'set_production_field', path: 'production.alert_notification_recipients', before: 'ops@example.com', after: '' },
    ]);
    expect((await server.local('POST', '/api/iop/production/apply', { definition: desired })).status).toBe(200);
    const applied = (await server.local('GET', `/api/iop/export?production=${production}`)).json as Record<string, Record<string, unknown>>;
    expect(applied[production]?.['Setting']).toEqual({ '@Name': 'ShutdownTimeout', '#text': '45' });
    expect((await server.local('POST', '/api/iop/production/rollback', { production })).status).toBe(200);
    expect((await server.local('GET', `/api/iop/export?production=${production}`)).json).toEqual(exported);
  }, 60_000);

  it('answers them in the structured shape, keeps them through a PUT that leaves them out, refuses a malformed one', async () => {
    const read = async () => (await server.local('GET', `/api/iop/definition?production=${production}`)).json as Record<string, unknown>;
    const structured = await read();
    expect(structured['settings']).toEqual([
      { name: 'UpdateTimeout', value: '30' },
      { name: 'AlertNotificationRecipients', value: 'ops@example.com' },
    ]);
    const withoutSettings = Object.fromEntries(Object.entries(structured).filter(([key]) => key !== 'settings'));
    expect((await server.local('PUT', '/api/iop/definition', { definition: { ...withoutSettings, description: 'edited' } })).status).toBe(200);
    expect(await read()).toEqual({ ...structured, description: 'edited' });
    const twice = await server.local('PUT', '/api/iop/definition', {
      definition: {
        ...withoutSettings,
        settings: [
          { name: 'ShutdownTimeout', value: '1' },
          { name: 'ShutdownTimeout', value: '2' },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.json).toMatchObject({ error: expect.stringMatching(/definition setting 2: the setting ShutdownTimeout is given twice/) });
    expect(await read()).toEqual({ ...structured, description: 'edited' });
  }, 60_000);
});

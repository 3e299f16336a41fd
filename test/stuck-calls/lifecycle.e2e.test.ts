/**
 * Stuck calls against a real server with real python3 workers: components that never answer
 * (on_message, on_init, on_tear_down, a synchronous send) must not freeze the control plane. Every
 * lifecycle route answers before a liveness deadline, what can never answer is refused at once with
 * the item and the reason, a message in flight stays queued and resumes at the next start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { answersWithin, errorOf, fixtureSettings, inFlight, lastLogId, logSince, recorded } from './support.ts';

/** Liveness deadlines (generous: what matters is that the call answers at all). */
const refusal = 10_000;
const killDeadline = 10_000;
/** Stop = drain (10 s) + in-flight grace (5 s) + on_tear_down grace (5 s), then it escalates to a kill. */
const stopDeadline = 60_000;

describe('stuck calls never freeze the control plane', () => {
  const dir = tempDir('conveyor-stuck-');
  let server: ServerProcess;
  const call = (method: string, path: string, body?: unknown) => server.local(method, `/api/iop${path}`, body);
  const test = (body: Record<string, unknown>) => call('POST', '/test', body);

  beforeAll(async () => {
    server = await startServerProcess(join(dir.path, 'home'), [], { STUCK_DIR: dir.path });
    const migrated = await call('PUT', '/migrate', { local_path: fixtureSettings });
    expect(migrated.status, migrated.text).toBe(200);
    const started = await call('POST', '/start', { production: 'Stuck.Production' });
    expect(started.status, started.text).toBe(200);
  }, 90_000);

  afterAll(async () => {
    writeFileSync(join(dir.path, 'open'), '');
    await server?.kill('SIGKILL');
    dir.remove();
  });

  it('a disabled item whose class is not registered logs no error at start', async () => {
    const entries = await logSince(server, 0);
    expect(entries.filter((e) => e.type === 'Error' && e.config_name === 'Ghost')).toEqual([]);
  });

  it('refuses at once a test to a business service, a disabled item, an item in error, a stopped item without restart', async () => {
    const service = await answersWithin(refusal, 'test to a service', test({ target: 'Idle' }));
    expect(service.status).toBe(500);
    expect(errorOf(service)).toMatch(/Idle.*business service/);

    const disabled = await answersWithin(refusal, 'test to a disabled item', test({ target: 'Off' }));
    expect(errorOf(disabled)).toMatch(/Off.*disabled/);

    const broken = await answersWithin(refusal, 'test to an item in error', test({ target: 'RaiseInit', restart: false }));
    expect(errorOf(broken)).toMatch(/RaiseInit.*in error.*on_init refuses to start/s);

    const restarted = await answersWithin(refusal, 'test restarting an item in error', test({ target: 'RaiseInit' }));
    expect(restarted.status).toBe(500);
    expect(errorOf(restarted)).toMatch(/RaiseInit.*on_init refuses to start/s);

    expect((await call('POST', '/component/stop', { component: 'Echo' })).status).toBe(200);
    const stopped = await answersWithin(refusal, 'test to a stopped item', test({ target: 'Echo', restart: false }));
    expect(errorOf(stopped)).toMatch(/Echo.*stopped/);
    // With a restart (the default) the stopped item is started and answers.
    const answered = await answersWithin(
      refusal,
      'test restarting a stopped item',
      test({ target: 'Echo', classname: 'stuck_msg.Ping', body: { text: 'hi' } }),
    );
    expect(answered.status, answered.text).toBe(200);
    expect(JSON.parse((answered.json as { body: string }).body)).toEqual({ text: 'hi' });
  });

  it('refuses a test with an unknown message class without logging a failure of the target', async () => {
    const before = await lastLogId(server);
    const unknown = await answersWithin(refusal, 'test with an unknown class', test({ target: 'Echo', classname: 'stuck_msg.Nope', restart: false }));
    expect(unknown.status).toBe(500);
    expect(errorOf(unknown)).toMatch(/stuck_msg\.Nope/);
    // The event log is written in batches: wait for an entry written after the refusal, then look.
    expect((await call('POST', '/component/restart', { component: 'Echo' })).status).toBe(200);
    const entries = await eventually(async () => {
      const all = await logSince(server, before);
      return all.some((e) => e.config_name === 'Echo' && /Item Echo started/.test(e.text)) ? all : undefined;
    }, 'the restart of Echo in the event log');
    expect(entries.filter((e) => e.config_name === 'Echo' && e.type === 'Error')).toEqual([]);
  });

  it('component/restart of an item that cannot start says so instead of "restarted"', async () => {
    const reply = await answersWithin(refusal, 'component/restart', call('POST', '/component/restart', { component: 'RaiseInit' }));
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(errorOf(reply)).toMatch(/RaiseInit.*on_init refuses to start/s);
  });

  it('a synchronous send past its timeout gives the caller an error', async () => {
    const reply = await answersWithin(60_000, 'test of the sync caller', test({ target: 'Caller', classname: 'stuck_msg.Ping', body: { text: 'sync' } }));
    expect(reply.status, reply.text).toBe(200);
    expect(JSON.parse((reply.json as { body: string }).body).text).toMatch(/caught: .*(timeout|within)/i);
  });

  it('a test call that gets no reply times out, ends the worker and puts the item in error', async () => {
    const before = await lastLogId(server);
    // 8 s: long enough for the Gate to take the message even on a loaded machine (then it is stuck on it).
    const reply = await answersWithin(
      60_000,
      'test with an 8 s timeout',
      test({ target: 'Gate', classname: 'stuck_msg.Ping', body: { text: 'never' }, timeout: 8 }),
    );
    expect(reply.status).toBe(500);
    expect(errorOf(reply)).toMatch(/Gate did not answer test message \d+ within 8000 ms; its worker was ended/);
    // The event log is written in batches: the entry may land just after the reply.
    await eventually(
      async () => (await logSince(server, before)).some((e) => e.type === 'Error' && e.config_name === 'Gate' && /did not answer/.test(e.text)) || undefined,
      'the Error entry of the Gate',
    );
    const refused = await answersWithin(refusal, 'test to the item in error', test({ target: 'Gate', restart: false }));
    expect(errorOf(refused)).toMatch(/Gate.*in error/);
  });

  it('with a call stuck in on_message, every lifecycle route answers; the message stays queued and resumes at the next start', async () => {
    // A test call the Gate takes and never answers (its own timeout is far away).
    const stuck = test({ target: 'Gate', classname: 'stuck_msg.Ping', body: { text: 'held' }, timeout: 600 });
    await inFlight(dir.path, 'held');

    const echo = await answersWithin(refusal, 'another test', test({ target: 'Echo', classname: 'stuck_msg.Ping', body: { text: 'x' } }));
    expect(echo.status, echo.text).toBe(200);
    for (const action of ['stop', 'start', 'restart']) {
      const reply = await answersWithin(stopDeadline, `component/${action}`, call('POST', `/component/${action}`, { component: 'Echo' }));
      expect(reply.status, reply.text).toBe(200);
    }
    expect((await answersWithin(stopDeadline, 'update', call('POST', '/update'))).status).toBe(200);

    // Restart: the stop cannot finish the Gate's message, so it runs out and escalates to a kill.
    const restarted = await answersWithin(stopDeadline, 'restart', call('POST', '/restart'));
    expect(restarted.status, restarted.text).toBe(200);
    const released = await answersWithin(refusal, 'the stuck test call', stuck);
    expect(released.status).toBe(500);
    expect(errorOf(released)).toMatch(/before the reply came/);

    // After the restart the message was delivered again and is stuck again: kill pre-empts it.
    await eventually(
      () => recorded(dir.path, 'record.txt.entered').filter((t) => t === 'held').length >= 2 || undefined,
      'the held message to be delivered again',
      30_000,
    );
    const killed = await answersWithin(killDeadline, 'kill', call('POST', '/kill'));
    expect(killed.json).toEqual({ status: 'killed' });
    expect(recorded(dir.path, 'record.txt')).not.toContain('held');
    expect(((await call('GET', '/status')).json as { status: string }).status).toBe('suspended');

    // Next start, the gate open: the message still queued is handled.
    writeFileSync(join(dir.path, 'open'), '');
    expect((await answersWithin(60_000, 'start', call('POST', '/start', { production: 'Stuck.Production' }))).status).toBe(200);
    await eventually(() => recorded(dir.path, 'record.txt').includes('held') || undefined, 'the held message to resume', 30_000);
  }, 240_000);

  it('kill pre-empts a start stuck in on_init, and stop finishes past an on_tear_down that never returns', async () => {
    const stopped = await answersWithin(stopDeadline, 'stop with a hanging on_tear_down', call('POST', '/stop'));
    expect(stopped.status, stopped.text).toBe(200);

    const gate = join(dir.path, 'open');
    const { rmSync } = await import('node:fs');
    rmSync(gate, { force: true });
    const start = call('POST', '/start', { production: 'Stuck.Init' });
    await eventually(async () => ((await call('GET', '/status')).json as { status: string }).status === 'running' || undefined, 'the start to be under way');
    // Other commands wait for the start (its on_init is bounded); kill does not wait.
    const killed = await answersWithin(killDeadline, 'kill during a stuck start', call('POST', '/kill'));
    expect(killed.status, killed.text).toBe(200);
    const started = await answersWithin(refusal, 'the pre-empted start', start);
    expect(started.status).toBe(500);
    expect(errorOf(started)).toMatch(/killed/);
    expect(((await call('GET', '/status')).json as { status: string }).status).not.toBe('running');
  }, 120_000);

  it('an update whose new items hang in on_init holds up neither /test, /component nor /stop (they answer long before the 60 s on_init limit)', async () => {
    // The gate stays closed (the previous test removed it): HangInit's on_init never returns.
    expect((await answersWithin(60_000, 'start', call('POST', '/start', { production: 'Stuck.Production' }))).status).toBe(200);
    const hanging = ((await call('GET', '/definition?production=Stuck.Init')).json as { items: Array<Record<string, unknown>> }).items[0];
    const definition = (await call('GET', '/definition?production=Stuck.Production')).json as { items: Array<Record<string, unknown>> };
    definition.items.push(...[1, 2, 3].map((n) => ({ ...hanging, name: `Late${n}` })));
    const stored = await call('PUT', '/definition', { definition });
    expect(stored.status, stored.text).toBe(200);

    const update = call('POST', '/update');
    await eventually(async () => {
      const items = ((await call('GET', '/items?production=Stuck.Production')).json as { items: Array<{ name: string }> }).items;
      return items.some((item) => item.name === 'Late3') || undefined;
    }, 'the update to be adding its items');
    const echo = await answersWithin(
      refusal,
      'a test elsewhere during the update',
      test({ target: 'Echo', classname: 'stuck_msg.Ping', body: { text: 'during' }, restart: false }),
    );
    expect(echo.status, echo.text).toBe(200);
    const restarted = await answersWithin(refusal, 'component/restart during the update', call('POST', '/component/restart', { component: 'Echo' }));
    expect(restarted.status, restarted.text).toBe(200);
    // Within the stop's own limit (25 s), far from the 3 × 60 s the update's on_init calls would take one after another.
    const stopped = await answersWithin(30_000, 'stop during the update', call('POST', '/stop'));
    expect(stopped.status, stopped.text).toBe(200);
    const updated = await answersWithin(refusal, 'the update a stop ended', update);
    expect(updated.status).toBe(500);
    expect(errorOf(updated)).toMatch(/stopped during the update/);
  }, 120_000);
});

/** LISTEN/NOTIFY helper: delivery, channel scoping, and recovery after the listening connection dies. */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { PgNotifier } from './notifier.ts';
import { adminQuery, describePg, pgUrl, uniqueSchema, waitFor } from './pg-test-support.ts';

describePg('PgNotifier', () => {
  let pool: pg.Pool;
  let notifiers: PgNotifier[];
  const errors: Error[] = [];

  const notifier = (scope: string): PgNotifier => {
    const created = new PgNotifier({
      connection: { connectionString: pgUrl, application_name: 'conveyor-notifier-test' },
      pool,
      scope,
      onError: (e) => errors.push(e),
      reconnectDelayMs: 20,
    });
    notifiers.push(created);
    return created;
  };

  beforeEach(() => {
    pool = new pg.Pool({ connectionString: pgUrl, max: 2 });
    notifiers = [];
    errors.length = 0;
  });

  afterEach(async () => {
    await Promise.all(notifiers.map((n) => n.close()));
    await pool.end();
  });

  it('delivers to every subscriber of the channel in the same scope only', async () => {
    const scope = uniqueSchema('n');
    const [listener, sender, stranger] = [notifier(scope), notifier(scope), notifier(uniqueSchema('n'))];
    const heard: string[] = [];
    const strangerHeard: string[] = [];
    await listener.subscribe('wake', (payload) => heard.push(`1:${payload}`));
    await listener.subscribe('wake', (payload) => heard.push(`2:${payload}`));
    await stranger.subscribe('wake', (payload) => strangerHeard.push(String(payload)));
    await sender.notify('wake', 'hello');
    await waitFor(() => heard.length === 2, 5_000, 'both handlers');
    expect(heard.sort()).toEqual(['1:hello', '2:hello']);
    expect(strangerHeard).toEqual([]);
  });

  it('handles channel names longer than PostgreSQL identifiers', async () => {
    const scope = uniqueSchema('n');
    const long = `queue:${'x'.repeat(100)}`;
    const [listener, sender] = [notifier(scope), notifier(scope)];
    expect(Buffer.byteLength(listener.channelName(long))).toBeLessThanOrEqual(63);
    expect(listener.channelName(long)).not.toBe(listener.channelName(`${long}y`));
    const heard: (string | null)[] = [];
    await listener.subscribe(long, (payload) => heard.push(payload));
    await sender.notify(long, 'ok');
    await waitFor(() => heard.length === 1, 5_000, 'the notification');
    expect(heard).toEqual(['ok']);
  });

  it('reconnects after its connection is killed, tells handlers they may have missed some, and delivers again', async () => {
    const scope = uniqueSchema('n');
    const [listener, sender] = [notifier(scope), notifier(scope)];
    const heard: (string | null)[] = [];
    await listener.subscribe('wake', (payload) => heard.push(payload));
    const channel = listener.channelName('wake');
    const killed = await adminQuery<{ pid: number }>(
      `SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name = 'conveyor-notifier-test' AND query = $1`,
      [`LISTEN "${channel}"`],
    );
    expect(killed).toHaveLength(1);
    await waitFor(() => heard.includes(null), 10_000, 'the reconnect signal');
    expect(errors.length).toBeGreaterThan(0);
    await sender.notify('wake', 'after');
    await waitFor(() => heard.includes('after'), 5_000, 'a notification after the reconnect');
    expect(heard).toEqual([null, 'after']);
  });

  it('stops delivering after unsubscribe and refuses work once closed', async () => {
    const scope = uniqueSchema('n');
    const [listener, sender] = [notifier(scope), notifier(scope)];
    const heard: (string | null)[] = [];
    const unsubscribe = await listener.subscribe('wake', (payload) => heard.push(payload));
    const sentinel: (string | null)[] = [];
    await listener.subscribe('sentinel', (payload) => sentinel.push(payload));
    await unsubscribe();
    await sender.notify('wake', 'lost');
    await sender.notify('sentinel', 'seen');
    await waitFor(() => sentinel.length === 1, 5_000, 'the sentinel');
    expect(heard).toEqual([]);
    await listener.close();
    const error = await listener.subscribe('wake', () => undefined).catch((caught: unknown) => caught);
    expect(isConveyorError(error, 'ERR_STORE_CLOSED')).toBe(true);
  });

  it('fails a subscribe clearly when the database cannot be reached', async () => {
    const url = new URL(pgUrl);
    url.port = '1';
    const offline = new PgNotifier({ connection: { connectionString: url.toString() }, pool, scope: 'x' });
    notifiers.push(offline);
    const error = await offline.subscribe('wake', () => undefined).catch((caught: unknown) => caught);
    expect(isConveyorError(error, 'ERR_STORE_UNAVAILABLE')).toBe(true);
  });
});

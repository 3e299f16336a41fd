import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageBody } from '../../core/message.ts';
import { newItem, newProduction, type ItemSetting } from '../../core/production.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { newMessage } from '../../store/conformance/harness.ts';
import { eventually, tempDir } from '../../../test/support/temp-dir.ts';

/** Retries an assertion until it holds (alerts are stored and sent off the caller's path). */
function holds(assertion: () => unknown): Promise<true> {
  return eventually(async () => {
    await assertion();
    return true;
  }, 'the expected alerts');
}
import { EventLog } from '../event-log.ts';
import { NamespaceMonitor, type MonitoredItem, type MonitoredProduction } from './namespace-monitor.ts';

/** A running production as the monitor sees it: items with settings, and the alerts sent to Ens.Alert. */
function production(
  items: Array<{ name: string; settings?: ItemSetting[]; state?: string; inHand?: number }>,
  settings: Array<{ name: string; value: string }> = [],
) {
  const sent: Array<{ source: string; body: MessageBody }> = [];
  const definition = {
    ...newProduction(
      'P',
      items.map((item) => newItem(item.name, 'bo.X', { settings: item.settings ?? [] })),
    ),
    settings,
  };
  const hosts = new Map<string, MonitoredItem>(
    definition.items.map((item, index) => [
      item.name,
      // As on a single node: a request a job holds stays queued in the store.
      { item, state: items[index]?.state ?? 'running', queue: { takenStayQueued: true }, requestsInHand: items[index]?.inHand ?? 0 },
    ]),
  );
  const running: MonitoredProduction & { sent: typeof sent } = {
    name: 'P',
    definition,
    hosts,
    sent,
    async sendAlert(source, body) {
      sent.push({ source, body });
    },
  };
  return running;
}

const onError = [{ target: 'Host' as const, name: 'AlertOnError', value: '1' }];

describe('NamespaceMonitor', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let log: EventLog;
  let monitor: NamespaceMonitor | null;
  let now = 1_000_000;

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'db.sqlite') });
    log = new EventLog(store, 'USER', (error) => console.error(error));
    monitor = null;
    now = 1_000_000;
  });

  afterEach(async () => {
    monitor?.close();
    await store.close();
    dir.remove();
  });

  function watch(running: MonitoredProduction | null): NamespaceMonitor {
    monitor = new NamespaceMonitor('USER', store, log, () => running, { now: () => now, checkIntervalMs: 3_600_000 });
    return monitor;
  }

  const alerts = () => store.alerts.list('USER', { limit: 100 });
  const alertEntries = async () => (await store.log.top('USER', 100)).filter((entry) => entry.type === 'Alert');

  it('raises no alert for a failed message unless the item has AlertOnError', async () => {
    const running = production([{ name: 'Quiet' }, { name: 'Loud', settings: onError }, { name: 'Ens.Alert' }]);
    const m = watch(running);
    m.trouble('Quiet', { kind: 'failure', messageId: 1, text: 'Item Quiet failed on message 1: boom' });
    m.trouble('Loud', { kind: 'failure', messageId: 2, text: 'Item Loud failed on message 2: boom' });
    await holds(async () => expect(await alerts()).toHaveLength(1));
    expect((await alerts())[0]).toMatchObject({ source: 'Loud', category: 'failure', count: 1, text: 'Item Loud failed on message 2: boom' });
    await holds(async () => expect(await alertEntries()).toHaveLength(1));
    expect(running.sent).toHaveLength(1);
    expect(running.sent[0]!.source).toBe('Loud');
    expect(running.sent[0]!.body.classname).toBe('Ens.AlertRequest');
    expect(JSON.parse(running.sent[0]!.body.data)).toEqual({
      SourceConfigName: 'Loud',
      AlertText: 'Item Loud failed on message 2: boom',
      AlertTime: new Date(now).toISOString().replace('T', ' ').replace('Z', ''),
    });
  });

  it('counts repeats within the AlertActionWindow without sending them again; sends again after it', async () => {
    const running = production([{ name: 'Op', settings: onError }, { name: 'Ens.Alert' }], [{ name: 'AlertActionWindow', value: '30' }]);
    const m = watch(running);
    for (const id of [1, 2, 3]) {
      m.trouble('Op', { kind: 'failure', messageId: id, text: `Item Op failed on message ${id}: boom` });
      now += 1_000;
    }
    await holds(async () => expect((await alerts())[0]?.count).toBe(3));
    expect(running.sent).toHaveLength(1);
    now += 30_000;
    m.trouble('Op', { kind: 'failure', messageId: 4, text: 'Item Op failed on message 4: boom' });
    await holds(async () => expect((await alerts())[0]?.count).toBe(4));
    await holds(() => expect(running.sent).toHaveLength(2));
    expect(await alerts()).toHaveLength(1);
    await holds(async () => expect(await alertEntries()).toHaveLength(2));
  });

  it('stores and logs alerts without sending when the production has no Ens.Alert item', async () => {
    const running = production([{ name: 'Op', settings: onError }]);
    watch(running).trouble('Op', { kind: 'failure', messageId: 1, text: 'Item Op failed on message 1: boom' });
    await holds(async () => expect(await alertEntries()).toHaveLength(1));
    expect(running.sent).toHaveLength(0);
  });

  it('holds a failure alert for AlertGracePeriod: a success of the item meanwhile cancels it', async () => {
    const grace = [...onError, { target: 'Host' as const, name: 'AlertGracePeriod', value: '0.2' }];
    const running = production([
      { name: 'Flaky', settings: grace },
      { name: 'Broken', settings: grace },
    ]);
    const m = watch(running);
    m.trouble('Flaky', { kind: 'failure', messageId: 1, text: 'Item Flaky failed on message 1: timeout' });
    m.trouble('Broken', { kind: 'failure', messageId: 2, text: 'Item Broken failed on message 2: down' });
    m.handled('Flaky', true, 3);
    await holds(async () => expect(await alerts()).toHaveLength(1));
    expect((await alerts())[0]?.source).toBe('Broken');
  });

  it('raises an alert when an item goes to error, and when its jobs restart three times within five minutes', async () => {
    const m = watch(production([{ name: 'Op' }]));
    m.trouble('Op', { kind: 'item-error', text: 'Item Op failed to start: ImportError' });
    m.trouble('Op', { kind: 'restart', text: 'job 0 restarted' });
    now += 1_000;
    m.trouble('Op', { kind: 'restart', text: 'job 0 restarted' });
    now += 1_000;
    m.trouble('Op', { kind: 'restart', text: 'job 0 restarted' });
    await holds(async () => expect((await alerts()).map((alert) => alert.category).sort()).toEqual(['item-error', 'restarts']));
    expect((await alerts()).find((alert) => alert.category === 'restarts')?.text).toMatch(/restarted 3 times within 5 minutes/);
  });

  it('alerts once when a queue passes its QueueCountAlert, and again only after it went back under', async () => {
    const m = watch(production([{ name: 'Op', settings: [{ target: 'Host', name: 'QueueCountAlert', value: '2' }] }]));
    const ids = await store.messages.insert([newMessage(), newMessage(), newMessage()]);
    await m.check();
    await m.check();
    await holds(async () => expect(await alerts()).toHaveLength(1));
    expect((await alerts())[0]).toMatchObject({ category: 'queue', count: 1, text: 'Queue of Op has 3 messages, past its QueueCountAlert of 2' });
    expect(m.isOverQueueThreshold('Op')).toBe(true);
    await store.messages.update([{ id: ids[0]!, status: 'completed' }]);
    await m.check();
    expect(m.isOverQueueThreshold('Op')).toBe(false);
  });

  it('counts a request a job holds as in progress, not as waiting, against QueueCountAlert', async () => {
    const m = watch(production([{ name: 'Op', settings: [{ target: 'Host', name: 'QueueCountAlert', value: '2' }], inHand: 1 }]));
    await store.messages.insert([newMessage(), newMessage(), newMessage()]);
    await m.check();
    expect(m.isOverQueueThreshold('Op')).toBe(false);
    await store.messages.insert([newMessage()]);
    await m.check();
    expect(m.isOverQueueThreshold('Op')).toBe(true);
    await holds(async () => expect(await alerts()).toHaveLength(1));
    expect((await alerts())[0]).toMatchObject({ category: 'queue', count: 1, text: 'Queue of Op has 3 messages, past its QueueCountAlert of 2' });
  });

  it('marks an item inactive past its InactivityTimeout and alerts once; activity ends it', async () => {
    const m = watch(production([{ name: 'Op', settings: [{ target: 'Host', name: 'InactivityTimeout', value: '10' }] }]));
    await m.check(); // the item is seen running from now on
    now += 9_000;
    await m.check();
    expect(m.isInactive('Op')).toBe(false);
    now += 2_000;
    await m.check();
    await m.check();
    expect(m.isInactive('Op')).toBe(true);
    await holds(async () => expect(await alerts()).toHaveLength(1));
    expect((await alerts())[0]).toMatchObject({
      category: 'inactivity',
      count: 1,
      text: 'Item Op has been inactive for 11 s, past its InactivityTimeout of 10 s',
    });
    m.handled('Op', true, 1);
    await m.check();
    expect(m.isInactive('Op')).toBe(false);
  });

  it('counts figures per item: in, out, outcomes, mean, p95 and rates', () => {
    const m = watch(null);
    m.exchanged('Svc', 'Op', now);
    m.exchanged('Svc', 'Op', now);
    m.handled('Op', true, 10);
    m.handled('Op', false, 30);
    const op = m.statistics.find('Op')!.figures(now);
    expect(op).toMatchObject({
      messagesIn: 2,
      messagesOut: 0,
      processed: 1,
      failed: 1,
      lastActivity: now,
      meanMs: 20,
      p95Ms: 30,
      rate1m: 2 / 60,
      rate5m: 2 / 300,
    });
    expect(m.statistics.find('Svc')!.figures(now)).toMatchObject({ messagesIn: 0, messagesOut: 2, meanMs: null, p95Ms: null });
    // An alert request sent on an item's behalf is not that item's activity.
    m.exchanged(null, 'Ens.Alert', now + 5);
    expect(m.statistics.find('Ens.Alert')!.figures(now)).toMatchObject({ messagesIn: 1, lastActivity: now + 5 });
    expect(m.statistics.find('Svc')!.lastActivity).toBe(now);
  });
});

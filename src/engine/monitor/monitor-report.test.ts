import { describe, expect, it } from 'vitest';
import { NamespaceStatistics } from './item-statistics.ts';
import { buildMonitorReport, type ItemView, type ReportInput } from './monitor-report.ts';

const quiet = { alertOnError: false, gracePeriodMs: 0, inactivityTimeoutMs: 0, queueCountAlert: 0 };

function view(name: string, overrides: Partial<ItemView> = {}): ItemView {
  return {
    name,
    classname: `bo.${name}`,
    kind: 'operation',
    enabled: true,
    state: 'running',
    error: null,
    jobs: 1,
    alertSettings: quiet,
    inactive: false,
    ...overrides,
  };
}

const now = 10_000_000;

function input(overrides: Partial<ReportInput> = {}): ReportInput {
  return {
    namespace: 'USER',
    node: 'n1',
    production: 'P',
    status: 'running',
    items: [view('Op')],
    depths: [],
    statistics: new NamespaceStatistics(),
    openAlerts: 0,
    now,
    ...overrides,
  };
}

describe('buildMonitorReport', () => {
  it('is ok while every enabled item runs well, and reports figures and queue depths per item', () => {
    const statistics = new NamespaceStatistics();
    statistics.of('Op').received(now - 5);
    statistics.of('Op').handled(true, 12, now - 2);
    statistics.of('Svc').handled(true, 4, now - 1);
    statistics.of('Svc').sent(now - 1);
    const report = buildMonitorReport(
      input({
        items: [view('Svc', { kind: 'service' }), view('Op'), view('Off', { enabled: false, state: 'disabled' })],
        depths: [{ target: 'Op', queued: 3, delivered: 1, oldest: null }],
        statistics,
      }),
    );
    expect(report).toMatchObject({ health: 'ok', node: 'n1', production: 'P' });
    expect(report.items.map((item) => [item.name, item.status, item.messagesIn, item.messagesOut, item.queued, item.inProgress])).toEqual([
      ['Svc', 'running', 1, 1, 0, 0],
      ['Op', 'running', 1, 0, 3, 1],
      ['Off', 'disabled', 0, 0, 0, 0],
    ]);
    expect(report.items[1]).toMatchObject({ meanMs: 12, p95Ms: 12, lastActivity: now - 2, processed: 1, failed: 0 });
  });

  it('is down when the production does not run, or when every enabled item is in error', () => {
    expect(buildMonitorReport(input({ status: 'stopped' }))).toMatchObject({ health: 'down', reason: 'Production P is stopped' });
    expect(buildMonitorReport(input({ production: '', status: 'stopped' }))).toMatchObject({ health: 'down', reason: 'No production in namespace USER' });
    expect(buildMonitorReport(input({ items: [view('Op', { state: 'error', error: 'ImportError' })] }))).toMatchObject({
      health: 'down',
      reason: 'Every item of production P is in error',
    });
  });

  it('is degraded, naming why, by an item in error, an inactive item, a queue past its threshold or recent failures', () => {
    const statistics = new NamespaceStatistics();
    statistics.of('Failing').handled(false, 3, now - 1_000);
    const report = buildMonitorReport(
      input({
        items: [
          view('Broken', { state: 'error', error: 'ImportError: bo' }),
          view('Idle', { inactive: true, alertSettings: { ...quiet, inactivityTimeoutMs: 30_000 } }),
          view('Busy', { alertSettings: { ...quiet, queueCountAlert: 5 } }),
          view('Failing'),
          view('Fine'),
        ],
        depths: [{ target: 'Busy', queued: 6, delivered: 0, oldest: null }],
        statistics,
      }),
    );
    expect(report.health).toBe('degraded');
    expect(report.reason).toBe(
      'Broken is in error: ImportError: bo; Idle is inactive (no activity for 30 s); Busy has 6 queued messages (QueueCountAlert 5); Failing failed 1 message in the last minute',
    );
    expect(report.items.map((item) => item.status)).toEqual(['error', 'inactive', 'running', 'running', 'running']);
    // A minute later the old failure no longer degrades the production.
    const later = buildMonitorReport(input({ items: [view('Failing')], statistics, now: now + 61_000 }));
    expect(later.health).toBe('ok');
  });
});

/**
 * The store conformance suite: one set of behaviour checks every driver must pass. A driver's test
 * file calls `runStoreConformance('sqlite', open)` where `open` creates a fresh, empty database per
 * test. The rules checked are the ones documented in store.ts.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import { describeAlerts } from './conformance/alerts.ts';
import { describeControls } from './conformance/controls.ts';
import { describeDefinitions } from './conformance/definitions.ts';
import type { Harness, OpenedStore } from './conformance/harness.ts';
import { describeLifecycle } from './conformance/lifecycle.ts';
import { describeLog } from './conformance/log.ts';
import { describeMessageSearch } from './conformance/message-search.ts';
import { describeMessages } from './conformance/messages.ts';
import { describeQueues } from './conformance/queue.ts';
import { describeRetention } from './conformance/retention.ts';
import { describeRules } from './conformance/rules.ts';
import { describeSettingsMigrations } from './conformance/settings-migrations.ts';
import type { Store } from './store.ts';

export type { OpenedStore } from './conformance/harness.ts';

export function runStoreConformance(driverName: string, open: () => Promise<OpenedStore>): void {
  describe(`store conformance: ${driverName}`, () => {
    let opened: OpenedStore | null = null;
    let current: Store | null = null;

    beforeEach(async () => {
      opened = await open();
      current = opened.store;
    });

    afterEach(async () => {
      await current?.close();
      await opened?.cleanup();
      opened = null;
      current = null;
    });

    const harness: Harness = {
      store: () => {
        if (current === null) throw new Error('No store is open');
        return current;
      },
      reopen: async () => {
        if (opened === null || current === null) throw new Error('No store is open');
        await current.close();
        current = await opened.reopen();
        return current;
      },
    };

    describeDefinitions(harness);
    describeMessages(harness);
    describeMessageSearch(harness);
    describeQueues(harness);
    describeLog(harness);
    describeLifecycle(harness);
    describeSettingsMigrations(harness);
    describeRetention(harness);
    describeAlerts(harness);
    describeControls(harness);
    describeRules(harness);
  });
}

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { EventLog } from './event-log.ts';

describe('EventLog on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let writeErrors: unknown[];

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    writeErrors = [];
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    dir.remove();
  });

  const log = (namespace = 'USER') => new EventLog(store, namespace, (error) => writeErrors.push(error));

  it('writeNow commits the entry before it resolves, with the engine as the default source', async () => {
    await log().writeNow('Warning', 'disk almost full');
    const [entry] = await store.log.top('USER', 1);
    expect(entry).toMatchObject({
      namespace: 'USER',
      type: 'Warning',
      text: 'disk almost full',
      configName: '',
      job: String(process.pid),
      messageId: null,
      sessionId: null,
      sourceClass: 'Conveyor.Engine',
      sourceMethod: '',
    });
  });

  it('keeps the fields a caller gives', async () => {
    await log().writeNow('Error', 'failed', { configName: 'Op', job: '77', messageId: 5, sessionId: 4, sourceClass: 'bo.Op', sourceMethod: 'on_message' });
    expect((await store.log.top('USER', 1))[0]).toMatchObject({
      configName: 'Op',
      job: '77',
      messageId: 5,
      sessionId: 4,
      sourceClass: 'bo.Op',
      sourceMethod: 'on_message',
    });
  });

  it('write returns at once and the entries are committed in the order written', async () => {
    const events = log();
    for (let i = 1; i <= 5; i++) events.write('Info', `entry ${i}`);
    const entries = await eventually(async () => {
      const since = await store.log.since('USER', 0, 10);
      return since.length === 5 ? since : undefined;
    }, 'five log entries');
    expect(entries.map((e) => e.text)).toEqual(['entry 1', 'entry 2', 'entry 3', 'entry 4', 'entry 5']);
    expect(writeErrors).toEqual([]);
  });

  it('reports a failed write to its error callback instead of throwing or losing it silently', async () => {
    log('NOPE').write('Info', 'into a namespace that does not exist');
    const [error] = await eventually(() => (writeErrors.length > 0 ? writeErrors : undefined), 'the write error');
    expect(isConveyorError(error, 'ERR_NAMESPACE_UNKNOWN')).toBe(true);
  });

  it('writeNow rejects when the entry cannot be written', async () => {
    await store.close();
    const error = await log()
      .writeNow('Info', 'after close')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isConveyorError(error, 'ERR_STORE_CLOSED')).toBe(true);
    expect(writeErrors).toEqual([]);
  });
});

/** A hop on a PostgreSQL node continues the trace whose context it claimed from the shared database. */
import { afterAll, it } from 'vitest';
import { openStore } from '../../store/open-store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema } from '../../store/postgres/pg-test-support.ts';
import { expectStoredContextContinued, openEngine, traceEachTest } from './trace-test-support.ts';

traceEachTest();

describePg('traces across PostgreSQL nodes', () => {
  const schema = uniqueSchema('traces');
  const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
  afterAll(() => dropSchema(schema));

  it('continues the trace of a request claimed from the shared database', async () => {
    const store = await openStore({ url });
    const { engine, user } = await openEngine(store);
    try {
      await expectStoredContextContinued(store, user);
    } finally {
      await engine.close();
      await store.close();
    }
  });
});

/**
 * Pushing input into a business service (NamespaceOperations.processInput, `POST /component/input`)
 * through the real engine and python3 workers, with the order-flow example: the service's
 * on_process_input runs and its sends open a session; each refusal names its reason.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { expectCode } from '../support/engine-fixture.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const settings = fileURLToPath(new URL('../../examples/order-flow/settings.py', import.meta.url));

describe('input pushed into a business service', () => {
  const dir = tempDir('conveyor-service-input-');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;

  beforeAll(async () => {
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db'), durability: 'normal' });
    engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000 });
    user = await engine.namespace('USER');
    await user.migrate(settings);
  });

  afterAll(async () => {
    await engine.close();
    await store.close();
    dir.remove();
  });

  it('is refused while no production runs', async () => {
    await expectCode(user.processInput({ service: 'OrderIn', classname: 'msg.Order', body: {} }), 'ERR_PRODUCTION_NOT_RUNNING', /cannot send input to OrderIn/);
  });

  it("runs the service's on_process_input; what it sends starts a session that reaches the next item", async () => {
    await user.start('Example.OrderFlow');
    const result = await user.processInput({ service: 'OrderIn', classname: 'msg.Order', body: { id: 5, customer: 'ACME', amount: 10 } });
    expect(result).toMatchObject({ classname: '', body: '' });
    expect(result.sessionId).toEqual(expect.any(Number));
    const reached = await eventually(async () => {
      const found = await user.messages.search({ target: 'SmallOrders', kind: 'request', limit: 10 });
      return found.length > 0 ? found : undefined;
    }, 'the order to reach SmallOrders');
    expect(reached[0]).toMatchObject({ sessionId: result.sessionId, source: 'Router' });
  });

  it('refuses an unknown item, an item that is not a service and a body that is not a JSON object; passes on what the service raised; refuses a stopped service', async () => {
    await expectCode(user.processInput({ service: 'Nobody', body: {} }), 'ERR_ITEM_NOT_FOUND', /No item named 'Nobody'/);
    await expectCode(user.processInput({ service: 'Router', classname: 'msg.Order', body: {} }), 'ERR_INVALID_INPUT', /Item Router is not a business service/);
    await expectCode(user.processInput({ service: 'OrderIn', classname: 'msg.Order', body: '[1, 2]' }), 'ERR_INVALID_INPUT');
    await expectCode(
      user.processInput({ service: 'OrderIn', classname: 'msg.Order', body: { id: 8, amount: 1 } }),
      'ERR_COMPONENT_FAILED',
      /order 8 has no customer/,
    );
    await user.components.stop('OrderIn');
    await expectCode(
      user.processInput({ service: 'OrderIn', classname: 'msg.Order', body: {} }),
      'ERR_ITEM_NOT_RUNNING',
      /Service OrderIn is (stopped|disabled)/,
    );
  });
});

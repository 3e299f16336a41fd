import { describe, expect, it } from 'vitest';
import type { Reply } from '../core/component.ts';
import { isConveyorError } from '../core/errors.ts';
import type { MessageBody, StoredMessage } from '../core/message.ts';
import type { EventLog } from './event-log.ts';
import { MessageCall } from './message-call.ts';
import type { MessageRouter, Origin, Outcome, SendRequestOptions, SentRequest } from './message-router.ts';
import type { ItemQueue } from './work-queue.ts';

const body = (data: string): MessageBody => ({ classname: 'msg.M', encoding: 'json', data });

function stored(id: number, sessionId: number, overrides: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id,
    namespace: 'USER',
    sessionId,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'Svc',
    target: 'Proc',
    responseRequired: true,
    status: 'delivered',
    priority: 0,
    description: 'order.txt',
    error: null,
    attempts: 1,
    createdAt: 0,
    updatedAt: 0,
    leaseOwner: null,
    leaseUntil: null,
    body: body('{}'),
    ...overrides,
  };
}

interface Sent {
  origin: Origin;
  target: string;
  options: SendRequestOptions;
  settle: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | null;
}

/** The router edge: records each send, assigns ids, and lets the test answer each request. */
class ScriptedRouter implements MessageRouter {
  readonly namespace = 'USER';
  readonly sent: Sent[] = [];
  readonly completed: Array<{ request: StoredMessage; outcome: Outcome }> = [];
  private nextId = 100;

  get log(): EventLog {
    throw new Error('not used');
  }

  async send(origin: Origin, target: string, _body: MessageBody, options: SendRequestOptions): Promise<SentRequest> {
    const id = this.nextId++;
    const record: Sent = { origin, target, options, settle: null };
    this.sent.push(record);
    const reply = options.responseRequired ? new Promise<Reply>((resolve, reject) => (record.settle = { resolve, reject })) : null;
    return { message: stored(id, origin.sessionId ?? id, { target }), accepted: Promise.resolve(), reply };
  }

  answer(index: number, reply: Reply): void {
    this.sent[index]!.settle!.resolve(reply);
  }

  fail(index: number, text: string): void {
    this.sent[index]!.settle!.reject(new Error(text));
  }

  async complete(request: StoredMessage, outcome: Outcome): Promise<void> {
    this.completed.push({ request, outcome });
  }

  transform(): Promise<MessageBody> {
    return Promise.reject(new Error('not used'));
  }
  importSchema(): Promise<void> {
    return Promise.reject(new Error('not used'));
  }
  createQueue(): ItemQueue {
    throw new Error('not used');
  }
  mayPoll(): Promise<boolean> {
    return Promise.resolve(true);
  }
  countOutcome(): void {}
  reportTrouble(): void {}
}

/** Lets the sends started so far reach the router. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('MessageCall', () => {
  it('sends on behalf of its item, inside the session of the request being handled', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    expect([call.messageId, call.sessionId, call.description]).toEqual([7, 5, 'order.txt']);
    const reply = call.sendSync('Op', body('{"q":1}'), { description: 'lookup' });
    await settle();
    expect(router.sent[0]).toMatchObject({
      origin: { source: 'Proc', parentId: 7, sessionId: 5 },
      target: 'Op',
      options: { responseRequired: true, description: 'lookup' },
    });
    router.answer(0, body('{"a":1}'));
    expect(await reply).toEqual(body('{"a":1}'));
  });

  it('for a poll, opens a session with its first send and keeps it for the later ones', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Svc', null);
    expect([call.messageId, call.sessionId, call.description]).toEqual([null, null, '']);
    await call.sendAsync('A', body('1'));
    await call.sendAsync('B', body('2'));
    expect(router.sent.map((s) => s.origin)).toEqual([
      { source: 'Svc', parentId: null, sessionId: null },
      { source: 'Svc', parentId: null, sessionId: 100 },
    ]);
    expect(call.sessionId).toBe(100);
  });

  it('rejects a sync send with ERR_TIMEOUT, naming the target and the message, when no reply comes in time', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    const error = await call.sendSync('Slow', body('{}'), { timeoutMs: 20 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConveyorError(error, 'ERR_TIMEOUT')).toBe(true);
    expect((error as Error).message).toBe('No reply from Slow within 20 ms (message 100)');
  });

  it('passes a sync reply through when it comes before the timeout', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    const reply = call.sendSync('Op', body('{}'), { timeoutMs: 10_000 });
    await settle();
    router.answer(0, null);
    expect(await reply).toBeNull();
  });

  it('resolves an async send once the request is accepted, without waiting for a reply unless one is required', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    await call.sendAsync('Op', body('{}'));
    expect(router.sent[0]!.options.responseRequired).toBe(false);
    expect([call.outstanding, call.hadAsync]).toEqual([0, false]);
    expect(await call.nextArrival()).toBeNull();
  });

  it('collects the replies of async requests for on_response, a failed one as no response', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    await call.sendAsync('A', body('"a"'), { responseRequired: true, completionKey: 'ka' });
    await call.sendAsync('B', body('"b"'), { responseRequired: true, completionKey: 'kb' });
    expect([call.outstanding, call.hadAsync]).toEqual([2, true]);
    router.fail(1, 'B broke');
    expect(await call.nextArrival()).toEqual({ callRequest: body('"b"'), callResponse: null, completionKey: 'kb' });
    const waiting = call.nextArrival();
    router.answer(0, body('"A done"'));
    expect(await waiting).toEqual({ callRequest: body('"a"'), callResponse: body('"A done"'), completionKey: 'ka' });
    expect(call.outstanding).toBe(0);
    expect(await call.nextArrival()).toBeNull();
  });

  it('stops waiting for async replies when the timer set by the process runs out', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    await call.sendAsync('A', body('{}'), { responseRequired: true });
    call.setTimer(20);
    expect(await call.nextArrival()).toBeNull();
    expect(call.outstanding).toBe(1);
  });

  it('sends several sync requests at once and reports each outcome in call order', async () => {
    const router = new ScriptedRouter();
    const call = new MessageCall(router, 'Proc', stored(7, 5));
    const replies = call.sendMultiSync([
      { target: 'A', body: body('1') },
      { target: 'B', body: body('2') },
    ]);
    await settle();
    router.fail(1, 'B refused');
    router.answer(0, body('"ok"'));
    expect(await replies).toEqual([
      { target: 'A', request: body('1'), response: body('"ok"'), status: 'ok' },
      { target: 'B', request: body('2'), response: null, status: 'B refused' },
    ]);
  });

  it('answers the original caller once, however often reply() is called', async () => {
    const router = new ScriptedRouter();
    const request = stored(7, 5);
    const call = new MessageCall(router, 'Proc', request);
    await call.reply(body('"early"'));
    await call.reply(body('"again"'));
    expect(call.replied).toBe(true);
    expect(router.completed).toEqual([{ request, outcome: { response: body('"early"') } }]);
  });

  it('refuses reply() outside a request with ERR_INVALID_INPUT', async () => {
    const call = new MessageCall(new ScriptedRouter(), 'Svc', null);
    const error = await call.reply(null).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConveyorError(error, 'ERR_INVALID_INPUT')).toBe(true);
  });
});

/** Conformance: message inserts, patches, reads, search and sessions. */
import { describe, expect, it } from 'vitest';
import { parseBodyCondition } from '../../core/body-condition.ts';
import type { MessageBody, MessageHeader, StoredMessage } from '../../core/message.ts';
import { carryBodyBytes } from '../../core/message-bytes.ts';
import { clockPast, isStrictlyIncreasing, newMessage, type Harness } from './harness.ts';

function headerOf(message: StoredMessage): MessageHeader {
  const header: Partial<StoredMessage> = { ...message };
  delete header.body;
  return header as MessageHeader;
}

export function describeMessages(h: Harness): void {
  describe('messages: insert, get, update', () => {
    it('round-trips every field, including nulls, booleans, unicode and a 4 MB body', async () => {
      const store = h.store();
      const big = 'é'.repeat(1024) + 'x'.repeat(4 * 1024 * 1024) + '✓';
      const before = Date.now();
      const [first] = await store.messages.insert([newMessage({ description: 'ünïcödé ✓ 日本 "q"', responseRequired: true, priority: 3 })]);
      const input = newMessage({
        sessionId: first!,
        parentId: first!,
        correspondingId: 42,
        kind: 'response',
        source: 'Op ü',
        target: 'Proc',
        status: 'completed',
        body: { classname: 'msg.Big', encoding: 'pickle', data: big },
      });
      const [second] = await store.messages.insert([input]);
      const one = await store.messages.get('USER', first!);
      expect(one).toMatchObject({
        id: first,
        namespace: 'USER',
        sessionId: first,
        parentId: null,
        correspondingId: null,
        responseRequired: true,
        priority: 3,
        description: 'ünïcödé ✓ 日本 "q"',
      });
      const two = await store.messages.get('USER', second!);
      const { namespace, sessionId, parentId, correspondingId, kind, source, target, responseRequired, status, priority, description, body } = input;
      expect(two).toEqual({
        id: second,
        ...{ namespace, sessionId, parentId, correspondingId, kind, source, target, responseRequired, status, priority, description, body },
        error: null,
        attempts: 0,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        leaseOwner: null,
        leaseUntil: null,
      });
      expect(two!.body.data.length).toBe(big.length);
      expect(two!.createdAt).toBeGreaterThanOrEqual(before);
      expect(two!.updatedAt).toBe(two!.createdAt);
    });

    it('stores a body that carries its UTF-8 bytes (from a Python frame) as the same text, searchable as JSON', async () => {
      const store = h.store();
      const data = JSON.stringify({ name: 'ünïcödé ✓ 日本', filler: 'x'.repeat(5000) });
      const body = { classname: 'msg.Big', encoding: 'json', data: '' } as MessageBody;
      carryBodyBytes(body, Buffer.from(data, 'utf8'));
      const [id] = await store.messages.insert([newMessage({ body })]);
      expect((await store.messages.get('USER', id!))!.body).toEqual({ classname: 'msg.Big', encoding: 'json', data });
      const page = await store.messages.find('USER', { limit: 5, scanLimit: 100, body: parseBodyCondition('$.name contains "日本"') });
      expect(page.hits.map((hit) => hit.id)).toEqual([id]);
    });

    it('gives a session-starting message its own id as session id, and keeps a given one', async () => {
      const store = h.store();
      const ids = await store.messages.insert([newMessage(), newMessage(), newMessage({ sessionId: 7 })]);
      expect(isStrictlyIncreasing(ids)).toBe(true);
      const read = await Promise.all(ids.map((id) => store.messages.get('USER', id)));
      expect(read.map((m) => m!.sessionId)).toEqual([ids[0], ids[1], 7]);
    });

    it('gives 1,000 concurrent inserts distinct ids, increasing in submission order, all readable', async () => {
      const store = h.store();
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => store.messages.insert([newMessage({ description: `m${i}` })])));
      const ids = results.map((r) => r[0]!);
      expect(new Set(ids).size).toBe(1000);
      expect(isStrictlyIncreasing(ids)).toBe(true);
      expect(await store.messages.count('USER')).toBe(1000);
      const sample = await Promise.all([0, 499, 999].map((i) => store.messages.get('USER', ids[i]!)));
      expect(sample.map((m) => m!.description)).toEqual(['m0', 'm499', 'm999']);
    });

    it('rejects an insert into an unknown namespace without failing the others', async () => {
      const store = h.store();
      const [good, bad, alsoGood] = await Promise.allSettled([
        store.messages.insert([newMessage()]),
        store.messages.insert([newMessage({ namespace: 'NOPE' })]),
        store.messages.insert([newMessage()]),
      ]);
      expect(good.status).toBe('fulfilled');
      expect(alsoGood.status).toBe('fulfilled');
      expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'ERR_NAMESPACE_UNKNOWN' } });
      expect(await store.messages.count('USER')).toBe(2);
      expect(await store.messages.insert([])).toEqual([]);
    });

    it('patches only the given fields, sets nulls, and bumps updatedAt', async () => {
      const store = h.store();
      const [id] = await store.messages.insert([newMessage()]);
      const created = (await store.messages.get('USER', id!))!;
      await clockPast(created.updatedAt);
      await store.messages.update([{ id: id!, status: 'error', error: 'boom ü', attempts: 2, correspondingId: 99, leaseOwner: 'node-a', leaseUntil: 123 }]);
      const patched = (await store.messages.get('USER', id!))!;
      expect(patched).toMatchObject({ status: 'error', error: 'boom ü', attempts: 2, correspondingId: 99, leaseOwner: 'node-a', leaseUntil: 123 });
      expect(patched.updatedAt).toBeGreaterThan(created.updatedAt);
      expect(patched.createdAt).toBe(created.createdAt);
      await store.messages.update([{ id: id!, error: null, leaseOwner: null, leaseUntil: null }]);
      expect(await store.messages.get('USER', id!)).toMatchObject({
        status: 'error',
        error: null,
        attempts: 2,
        correspondingId: 99,
        leaseOwner: null,
        leaseUntil: null,
      });
      await store.messages.update([
        { id: id!, status: 'completed' },
        { id: id!, correspondingId: null },
      ]);
      expect(await store.messages.get('USER', id!)).toMatchObject({ status: 'completed', correspondingId: null, attempts: 2 });
      await store.messages.update([]);
    });

    it('rejects a patch of an unknown message with ERR_MESSAGE_NOT_FOUND', async () => {
      const store = h.store();
      const [id] = await store.messages.insert([newMessage()]);
      const outcomes = await Promise.allSettled([
        store.messages.update([{ id: id! + 1000, status: 'completed' }]),
        store.messages.update([{ id: id!, status: 'completed' }]),
      ]);
      expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { code: 'ERR_MESSAGE_NOT_FOUND' } });
      expect(outcomes[1].status).toBe('fulfilled');
      expect((await store.messages.get('USER', id!))!.status).toBe('completed');
    });

    it('answers null for an unknown id or another namespace', async () => {
      const store = h.store();
      await store.namespaces.create('OTHER');
      const [id] = await store.messages.insert([newMessage()]);
      expect(await store.messages.get('USER', id! + 1)).toBeNull();
      expect(await store.messages.get('OTHER', id!)).toBeNull();
      expect(await store.messages.get('NOPE', id!)).toBeNull();
      expect(await store.messages.count('OTHER')).toBe(0);
    });
  });

  describe('messages: unfinished, session', () => {
    it('lists queued and delivered requests with bodies, oldest first', async () => {
      const store = h.store();
      const ids = await store.messages.insert([
        newMessage({ status: 'delivered' }),
        newMessage({ status: 'completed' }),
        newMessage({ status: 'queued', body: { classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":"s"}' } }),
        newMessage({ status: 'queued', kind: 'response' }),
        newMessage({ status: 'error' }),
        newMessage({ status: 'discarded' }),
      ]);
      const unfinished = await store.messages.unfinished('USER');
      expect(unfinished.map((m) => m.id)).toEqual([ids[0], ids[2]]);
      expect(unfinished[1]!.body).toEqual({ classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":"s"}' });
      expect(await store.messages.unfinished('NOPE')).toEqual([]);
    });

    it('returns the headers of one session, oldest first', async () => {
      const store = h.store();
      const [root] = await store.messages.insert([newMessage()]);
      const [other] = await store.messages.insert([newMessage()]);
      const children = await store.messages.insert([
        newMessage({ sessionId: root!, parentId: root!, source: 'Proc', target: 'Op' }),
        newMessage({ sessionId: other!, parentId: other! }),
        newMessage({ sessionId: root!, parentId: root!, kind: 'response', source: 'Op', target: 'Proc' }),
      ]);
      const session = await store.messages.session('USER', root!);
      expect(session.map((m) => m.id)).toEqual([root, children[0], children[2]]);
      expect(session[0]).toEqual(headerOf((await store.messages.get('USER', root!))!));
      expect('body' in session[0]!).toBe(false);
      expect(await store.messages.session('USER', 123456)).toEqual([]);
    });
  });

  describe('messages: search', () => {
    it('filters by each field, newest first', async () => {
      const store = h.store();
      const ids = await store.messages.insert([
        newMessage({ source: 'A', target: 'X', status: 'completed', body: { classname: 'msg.One', encoding: 'json', data: '{"name":"Alice"}' } }),
        newMessage({ source: 'B', target: 'X', status: 'error', kind: 'response', body: { classname: 'msg.Two', encoding: 'json', data: '{"name":"alice"}' } }),
        newMessage({ source: 'A', target: 'Y', status: 'queued', body: { classname: 'msg.One', encoding: 'json', data: '{"name":"Bob % _"}' } }),
      ]);
      const [a, b, c] = ids as [number, number, number];
      await store.messages.insert([newMessage({ sessionId: a, source: 'C', target: 'Z' })]);
      const search = async (filter: Record<string, unknown>) => (await store.messages.search('USER', { limit: 100, ...filter })).map((m) => m.id);
      expect((await search({})).slice(1)).toEqual([c, b, a]);
      expect(await search({ source: 'A' })).toEqual([c, a]);
      expect(await search({ target: 'X' })).toEqual([b, a]);
      expect(await search({ classname: 'msg.One' })).toEqual([c, a]);
      expect(await search({ status: 'error' })).toEqual([b]);
      expect(await search({ kind: 'response' })).toEqual([b]);
      expect((await search({ sessionId: a })).length).toBe(2);
      expect(await search({ text: 'Alice' })).toEqual([a]);
      expect(await search({ text: 'lice' })).toEqual([b, a]);
      expect(await search({ text: '% _' })).toEqual([c]);
      expect(await search({ text: '%' })).toEqual([c]);
      expect(await search({ source: 'A', target: 'Y', status: 'queued', classname: 'msg.One' })).toEqual([c]);
      expect(await search({ source: 'A', target: 'X', status: 'queued' })).toEqual([]);
      const header = (await store.messages.search('USER', { limit: 1, status: 'error' }))[0]!;
      expect(header).toEqual(headerOf((await store.messages.get('USER', b))!));
      expect(await store.messages.search('NOPE', { limit: 10 })).toEqual([]);
    });

    it('bounds createdAt inclusively with from and to', async () => {
      const store = h.store();
      const [m1] = await store.messages.insert([newMessage()]);
      const t1 = (await store.messages.get('USER', m1!))!.createdAt;
      await clockPast(t1);
      const [m2] = await store.messages.insert([newMessage()]);
      const t2 = (await store.messages.get('USER', m2!))!.createdAt;
      await clockPast(t2);
      const [m3] = await store.messages.insert([newMessage()]);
      const t3 = (await store.messages.get('USER', m3!))!.createdAt;
      const ids = async (filter: { from?: number; to?: number }) => (await store.messages.search('USER', { limit: 10, ...filter })).map((m) => m.id);
      expect(await ids({ from: t2, to: t2 })).toEqual([m2]);
      expect(await ids({ from: t2 })).toEqual([m3, m2]);
      expect(await ids({ to: t2 })).toEqual([m2, m1]);
      expect(await ids({ from: t3 + 1 })).toEqual([]);
      expect(await ids({ to: t1 - 1 })).toEqual([]);
    });

    it('pages with beforeId and limit without gaps or repeats', async () => {
      const store = h.store();
      const ids = await store.messages.insert(Array.from({ length: 25 }, () => newMessage()));
      const seen: number[] = [];
      let beforeId: number | undefined;
      for (;;) {
        const page = await store.messages.search('USER', { limit: 7, ...(beforeId === undefined ? {} : { beforeId }) });
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(7);
        seen.push(...page.map((m) => m.id));
        beforeId = page[page.length - 1]!.id;
      }
      expect(seen).toEqual([...ids].reverse());
      expect(await store.messages.search('USER', { limit: 0 })).toEqual([]);
      expect(await store.messages.search('USER', { limit: -1 })).toEqual([]);
    });
  });
}

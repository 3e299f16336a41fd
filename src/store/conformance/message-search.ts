/** Conformance: the content search (`messages.find`): header filters, row checks, body tests, the scan bound. */
import { describe, expect, it } from 'vitest';
import { parseBodyCondition } from '../../core/body-condition.ts';
import type { MessageBody } from '../../core/message.ts';
import type { MessageSearch } from '../store.ts';
import { newMessage, type Harness } from './harness.ts';

const json = (data: unknown, classname = 'msg.Patient'): MessageBody => ({ classname, encoding: 'json', data: JSON.stringify(data) });

export function describeMessageSearch(h: Harness): void {
  describe('messages: content search (find)', () => {
    const all = (extra: Partial<MessageSearch> = {}): MessageSearch => ({ limit: 50, scanLimit: 1000, ...extra });

    async function bodyMatches(condition: string): Promise<number[]> {
      const page = await h.store().messages.find('USER', all({ body: parseBodyCondition(condition) }));
      return page.hits.map((hit) => hit.id);
    }

    it('answers hits newest first with the class, the encoding and the body or its start', async () => {
      const store = h.store();
      const [a, b] = await store.messages.insert([
        newMessage({ body: json({ patient: { id: 42, name: 'Ann' } }) }),
        newMessage({ body: { classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":"héllo wörld"}' } }),
      ]);
      const page = await store.messages.find('USER', all({ bodyChars: 12 }));
      expect(page.hits.map((hit) => hit.id)).toEqual([b, a]);
      expect(page.hits[0]).toMatchObject({ id: b, classname: 'Ens.StringRequest', encoding: 'native', body: '{"StringValu', source: 'Svc', target: 'Op' });
      expect(page.hits[1]).toMatchObject({ classname: 'msg.Patient', encoding: 'json', body: '{"patient":{' });
      expect(page.next).toBeNull();
      const whole = await store.messages.find('USER', all({ sessionId: a! }));
      expect(whole.hits[0]!.body).toBe('{"patient":{"id":42,"name":"Ann"}}');
      expect(await store.messages.find('NOPE', all())).toEqual({ hits: [], next: null, scanned: 0 });
      expect((await store.messages.find('USER', all({ limit: 0 }))).hits).toEqual([]);
    });

    it('filters by the header fields and by a substring of the error', async () => {
      const store = h.store();
      const [first, second, third] = await store.messages.insert([
        newMessage({ source: 'A', target: 'X', status: 'completed' }),
        newMessage({ source: 'B', target: 'Y', status: 'error', body: json({}, 'msg.Other') }),
        newMessage({ source: 'B', target: 'X', status: 'error', kind: 'response' }),
      ]);
      await store.messages.update([
        { id: second!, error: 'Timeout: no reply from Y' },
        { id: third!, error: 'ValueError: bad id' },
      ]);
      const ids = async (extra: Partial<MessageSearch>) => (await store.messages.find('USER', all(extra))).hits.map((hit) => hit.id);
      expect(await ids({ source: 'B' })).toEqual([third, second]);
      expect(await ids({ target: 'X', status: 'error' })).toEqual([third]);
      expect(await ids({ classname: 'msg.Other' })).toEqual([second]);
      expect(await ids({ kind: 'response' })).toEqual([third]);
      expect(await ids({ sessionId: first! })).toEqual([first]);
      expect(await ids({ status: 'error', responseRequired: false })).toEqual([third, second]);
      expect(await ids({ responseRequired: true })).toEqual([]);
      expect(await ids({ error: 'no reply' })).toEqual([second]);
      expect(await ids({ error: 'NO REPLY' })).toEqual([]);
      expect(await ids({ error: 'Error' })).toEqual([third]);
      const created = (await store.messages.get('USER', second!))!.createdAt;
      expect(await ids({ from: created + 60_000 })).toEqual([]);
      expect(await ids({ to: created - 60_000 })).toEqual([]);
      expect(await ids({ from: created - 60_000, to: created + 60_000, beforeId: third! })).toEqual([second, first]);
    });

    it('tests JSON bodies: typed equality, contains, nested paths, array elements, quoted members', async () => {
      const store = h.store();
      const [n42, real42, text42, urgent, flags] = await store.messages.insert([
        newMessage({ body: json({ patient: { id: 42 }, name: 'routine check' }) }),
        newMessage({ body: { classname: 'msg.Patient', encoding: 'json', data: '{"patient":{"id":42.0}}' } }),
        newMessage({ body: json({ patient: { id: '42' }, name: 'Urgent case' }) }),
        newMessage({ body: json({ name: 'an urgent case', items: [{ sku: 'A-1' }, { sku: 'B-2' }], 'full name': 'Ann Lee' }) }),
        newMessage({ body: json({ ok: true, gone: null, no: false }) }),
      ]);
      expect(await bodyMatches('$.patient.id = 42')).toEqual([real42, n42]);
      expect(await bodyMatches('$.patient.id = "42"')).toEqual([text42]);
      expect(await bodyMatches('$.name contains "urgent"')).toEqual([urgent]);
      expect(await bodyMatches('$.name contains "case"')).toEqual([urgent, text42]);
      expect(await bodyMatches('$.items[1].sku = "B-2"')).toEqual([urgent]);
      expect(await bodyMatches('$.items[2].sku = "B-2"')).toEqual([]);
      expect(await bodyMatches('$["full name"] contains "Lee"')).toEqual([urgent]);
      expect(await bodyMatches('$.ok = true')).toEqual([flags]);
      expect(await bodyMatches('$.no = false')).toEqual([flags]);
      expect(await bodyMatches('$.gone = null')).toEqual([flags]);
      expect(await bodyMatches('$.missing = null')).toEqual([]);
      expect(await bodyMatches('$.patient.id contains "4"')).toEqual([text42]);
      expect(await bodyMatches('$.name contains "case" and $.patient.id = "42"')).toEqual([text42]);
    });

    it('never matches a body that is not JSON, and such a body does not break the search', async () => {
      const store = h.store();
      const [, , good] = await store.messages.insert([
        newMessage({ body: { classname: 'msg.P', encoding: 'pickle', data: 'gASVEAAAAAAAAAB9lIwCaWSUSypzLg==' } }),
        newMessage({ body: { classname: 'msg.P', encoding: 'json', data: '{"id": 42, "ratio": NaN}' } }),
        newMessage({ body: json({ id: 42 }) }),
        newMessage({ body: { classname: 'Ens.Request', encoding: 'empty', data: '' } }),
      ]);
      expect(await bodyMatches('$.id = 42')).toEqual([good]);
    });

    it('examines at most scanLimit header matches per call and says where the next call continues', async () => {
      const store = h.store();
      const ids = await store.messages.insert(Array.from({ length: 25 }, (_, i) => newMessage({ body: json({ n: i, tag: i < 3 ? 'old' : 'new' }) })));
      const condition = parseBodyCondition('$.tag = "old"');
      const first = await store.messages.find('USER', all({ body: condition, scanLimit: 10, limit: 5 }));
      expect(first).toEqual({ hits: [], next: ids[15], scanned: 10 });
      const second = await store.messages.find('USER', all({ body: condition, scanLimit: 10, limit: 5, beforeId: first.next! }));
      expect(second).toEqual({ hits: [], next: ids[5], scanned: 10 });
      const third = await store.messages.find('USER', all({ body: condition, scanLimit: 10, limit: 5, beforeId: second.next! }));
      expect(third.hits.map((hit) => hit.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(third.next).toBeNull();
      // A full page continues below its last hit, whatever the scan limit.
      const full = await store.messages.find('USER', all({ text: '"new"', scanLimit: 100, limit: 4 }));
      expect(full.hits.map((hit) => hit.id)).toEqual([ids[24], ids[23], ids[22], ids[21]]);
      expect(full.next).toBe(ids[21]);
      // Without a row check there is no scan bound: header filters walk an index.
      const plain = await store.messages.find('USER', all({ scanLimit: 1, limit: 30 }));
      expect(plain.hits).toHaveLength(25);
      expect(plain.next).toBeNull();
    });
  });
}

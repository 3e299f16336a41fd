/**
 * Message search by header fields and body content, its cursor paging and its CSV / NDJSON exports,
 * against a real `conveyor serve` over a SQLite home filled beforehand through the store, and the
 * refusals of bad input (a malformed condition, a bad cursor, a bad status, a bad time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewMessage } from '../../src/store/store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

let home: ReturnType<typeof tempDir>;
let server: ServerProcess;
/** Ids by role, as inserted. */
let ids: number[];

interface Page {
  messages: Array<{ id: number; classname: string; preview: string; status: string; error: string | null; source: string }>;
  next_cursor: string | null;
  scanned: number;
}

const message = (index: number, overrides: Partial<NewMessage> = {}): NewMessage => ({
  namespace: 'USER',
  sessionId: null,
  parentId: null,
  correspondingId: null,
  kind: 'request',
  source: index % 2 === 0 ? 'Intake' : 'Lab',
  target: 'Router',
  responseRequired: false,
  status: 'completed',
  priority: 0,
  description: '',
  body: {
    classname: 'msg.Patient',
    encoding: 'json',
    data: JSON.stringify({ patient: { id: index, name: `Patient ${index}` }, note: index === 7 ? 'urgent, call back' : 'routine' }),
  },
  ...overrides,
});

beforeAll(async () => {
  home = tempDir('conveyor-search-');
  const store = await openStore({ sqlitePath: `${home.path}/conveyor.db` });
  ids = await store.messages.insert(Array.from({ length: 1200 }, (_, index) => message(index)));
  const [failed] = await store.messages.insert([
    message(5000, {
      status: 'error',
      source: 'Lab',
      body: { classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":"x, \\"quoted\\"\\nline"}' },
    }),
  ]);
  await store.messages.update([{ id: failed!, error: 'ConnectionRefusedError: lab system down' }]);
  ids.push(failed!);
  await store.close();
  server = await startServerProcess(home.path, [], { CONVEYOR_ADMIN_PASSWORD: 'pw' });
}, 120_000);

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

const search = async (query: string) => server.local('GET', `/api/iop/messages/search?${query}`);

describe('GET /messages/search', () => {
  it('finds by a JSON path equal to a number, with the class and a body preview', async () => {
    const reply = await search(`body=${encodeURIComponent('$.patient.id = 42')}&preview=20`);
    expect(reply.status).toBe(200);
    const page = reply.json as Page;
    expect(page.messages.map((m) => m.id)).toEqual([ids[42]]);
    expect(page.messages[0]).toMatchObject({ classname: 'msg.Patient', preview: '{"patient":{"id":42,', encoding: 'json' });
    expect(page.next_cursor).toBeNull();
  });

  it('finds by contains, and combines body tests with header fields', async () => {
    const urgent = (await search(`body=${encodeURIComponent('$.note contains "urgent"')}`)).json as Page;
    expect(urgent.messages.map((m) => m.id)).toEqual([ids[7]]);
    const none = (await search(`source=Intake&body=${encodeURIComponent('$.note contains "urgent"')}`)).json as Page;
    expect(none.messages).toEqual([]);
    const failed = (await search('status=error&error=lab%20system')).json as Page;
    expect(failed.messages).toMatchObject([{ id: ids.at(-1), classname: 'Ens.StringRequest', error: 'ConnectionRefusedError: lab system down' }]);
    const suspended = (await search('status=suspended')).json as Page;
    expect(suspended.messages.map((m) => m.id)).toEqual([ids.at(-1)]);
    const byClass = (await search('classname=Ens.StringRequest')).json as Page;
    expect(byClass.messages.map((m) => m.id)).toEqual([ids.at(-1)]);
  });

  it('pages with an opaque cursor until null, every hit once, newest first', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply = await search(`source=Intake&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(reply.status).toBe(200);
      const page = reply.json as Page;
      seen.push(...page.messages.map((m) => m.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null);
    const expected = ids
      .slice(0, 1200)
      .filter((_, index) => index % 2 === 0)
      .reverse();
    expect(seen).toEqual(expected);
    expect(pages).toBe(4);
  });

  it('stops a rare body test at the scan bound and continues from the cursor', async () => {
    const condition = encodeURIComponent('$.patient.id = 3');
    const first = (await search(`body=${condition}&scan=500`)).json as Page;
    expect(first).toMatchObject({ messages: [], scanned: 500 });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await search(`body=${condition}&scan=500&cursor=${first.next_cursor}`)).json as Page;
    expect(second).toMatchObject({ messages: [], scanned: 500 });
    const third = (await search(`body=${condition}&scan=500&cursor=${second.next_cursor}`)).json as Page;
    expect(third.messages.map((m) => m.id)).toEqual([ids[3]]);
    expect(third.next_cursor).toBeNull();
  });

  it.each([
    ['body=%24.patient.id%20%3D', 400, 'expected a JSON value'],
    ['body=patient.id%20%3D%204', 400, 'expected a path starting with $'],
    ['body=%24.a%20%3D%201%20or%20%24.b%20%3D%202', 400, 'expected "and" or the end'],
    ['cursor=not-a-cursor', 400, 'is not a cursor of this search'],
    ['cursor=%24%24%24', 400, 'is not a cursor of this search'],
    ['status=lost', 400, 'status'],
    ['limit=0', 400, 'limit'],
    ['from=yesterday', 400, 'from must be a time'],
    ['colour=red', 400, 'colour'],
  ])('refuses %s with a clear error', async (query, status, text) => {
    const reply = await search(query);
    expect(reply.status).toBe(status);
    expect((reply.json as { error: string }).error).toContain(text);
  });
});

describe('GET /messages/export/csv and /ndjson', () => {
  it('streams every match as CSV with a header row and quoted fields', async () => {
    const reply = await server.local('GET', '/api/iop/messages/export/csv?source=Lab');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(reply.headers['transfer-encoding']).toBe('chunked');
    expect(reply.headers['content-disposition']).toMatch(/^attachment; filename="messages-\d{8}T\d{6}\.csv"$/);
    const lines = reply.text.split('\r\n');
    expect(lines[0]).toBe('id,created_at,session_id,parent_id,corresponding_id,kind,source,target,status,classname,encoding,error,description,body');
    // The failed message is the newest; its body holds a comma, quotes and a line break.
    expect(lines[1]).toMatch(
      new RegExp(
        `^${ids.at(-1)},\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z,${ids.at(-1)},,,request,Lab,Router,error,Ens.StringRequest,native,ConnectionRefusedError: lab system down,,"\\{""StringValue"":""x, \\\\""quoted\\\\""\\\\nline""\\}"$`,
      ),
    );
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(1 + 601 + 1);
  });

  it('streams NDJSON, one object a line, honouring max and the body condition', async () => {
    const all = await server.local('GET', `/api/iop/messages/export/ndjson?body=${encodeURIComponent('$.note = "routine"')}`);
    expect(all.headers['content-type']).toBe('application/x-ndjson');
    const rows = all.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; body: string; classname: string });
    expect(rows).toHaveLength(1199);
    expect(rows[0]).toMatchObject({
      id: ids[1199],
      classname: 'msg.Patient',
      body: JSON.stringify({ patient: { id: 1199, name: 'Patient 1199' }, note: 'routine' }),
    });
    const some = await server.local('GET', '/api/iop/messages/export/ndjson?max=3');
    expect(
      some.text
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: number }).id),
    ).toEqual([ids[1200], ids[1199], ids[1198]]);
  });

  it('refuses a malformed condition before streaming anything', async () => {
    const reply = await server.local('GET', `/api/iop/messages/export/csv?body=${encodeURIComponent('$.x ~ 1')}`);
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toContain('expected "=" or "contains"');
  });
});

/** DTL routes of a real server: lookup tables as IRIS XML, and test runs from the spec's envelope. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

describe('lookup tables as IRIS XML', () => {
  const dir = tempDir('conveyor-lookups-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess(dir.path);
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  it('imports an export, replaces the tables it names, and exports them back', async () => {
    await server.local('PUT', '/api/iop/lookups/Gender', { entries: { X: 'stale' } });
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<lookupTable>
<entry table="Gender" key="F">Female</entry>
<entry table="Gender" key="M">Male</entry>
<entry table="Codes" key="a&amp;b">x &lt; y</entry>
</lookupTable>`;
    const imported = await server.local('POST', '/api/iop/lookups/import', { xml });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json).toEqual({ tables: ['Gender', 'Codes'], entries: 3 });
    expect((await server.local('GET', '/api/iop/lookups/Gender')).json).toEqual({ table: 'Gender', entries: { F: 'Female', M: 'Male' } });
    const exported = (await server.local('GET', '/api/iop/lookups/export?table=Codes')).json as { xml: string };
    expect(exported.xml).toContain('<entry table="Codes" key="a&amp;b">x &lt; y</entry>');
    expect(exported.xml).not.toContain('Gender');
    const all = (await server.local('GET', '/api/iop/lookups/export')).json as { xml: string };
    expect(all.xml).toContain('key="M">Male</entry>');
  });

  it('refuses malformed XML with its position and changes nothing', async () => {
    const reply = await server.local('POST', '/api/iop/lookups/import', { xml: '<lookupTable>\n<entry table="T" key="k">v</entry>\n<entry table="T"' });
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toMatch(/lookup table import:3:\d+/);
    expect((await server.local('GET', '/api/iop/lookups/T')).status).toBe(404);
  });

  it("runs a transform on the spec's test envelope, and refuses a broken one with its position", async () => {
    const source = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='demo.In' targetDocType='demo.Out' create='new' language='objectscript'>
<assign value='source.{names(2)}' property='target.{second}' action='set'/>
<assign value='source.{post.Title}' property='target.{title}' action='set'/>
</transform>`;
    const envelope = '<test><Message><json><![CDATA[{"names": ["a", "b"], "post": {"Title": "Hello"}}]]></json></Message></test>';
    const run = await server.local('POST', '/api/iop/transforms/run', { source, envelope });
    expect(run.status, run.text).toBe(200);
    expect(run.json).toMatchObject({ status: 'ok', target: { second: 'b', title: 'Hello' }, targetClass: 'demo.Out' });
    const broken = await server.local('POST', '/api/iop/transforms/run', { source, envelope: '<test><Message><json>{' });
    expect(broken.status).toBe(400);
    expect((broken.json as { error: string }).error).toMatch(/test envelope/);
  });
});

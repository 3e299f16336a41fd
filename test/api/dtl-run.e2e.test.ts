/**
 * The DTL run and compile API of a real server (issue 20): the initial target, aux and parameters of
 * a run, its structured trace, unknown fields refused; compile diagnostics for missing subtransforms,
 * unknown classes and paths the schema lacks, positioned in the XML and the graph; transform names
 * checked against the document; foreach over an object in IRIS collation order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const head = (attrs = '') => `<transform sourceClass='IOP.Message' targetClass='IOP.Message' targetDocType='demo.Out'${attrs}>`;

function errorOf(reply: HttpReply): string {
  return (reply.json as { error: string }).error;
}

describe('POST /transforms/run, compile and PUT /transforms/:name', () => {
  const dir = tempDir('conveyor-dtl-run-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess(dir.path);
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  const run = (body: Record<string, unknown>) => server.local('POST', '/api/iop/transforms/run', body);

  it('runs with an initial target, aux and per-run parameters, and returns the structured trace beside the texts', async () => {
    const source = `${head(" create='existing'")}
<assign value='aux.{user}' property='target.{by}'/>
<assign value='source.{gone}' property='target.{gone}'/>
<foreach property='source.{lines()}' key='k'><trace value='source.{lines(k)}'/></foreach>
</transform>`;
    const reply = await run({ source, json: { lines: [{ sku: 'A' }] }, target: { kept: 1 }, aux: { user: 'ann' } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({
      status: 'ok',
      target: { kept: 1, by: 'ann' },
      trace: ['{"sku":"A"}'],
      traceEntries: [{ category: 'user', action: 'trace', position: '2.actions.0', value: { sku: 'A' }, text: '{"sku":"A"}', line: 4 }],
      errors: [],
      errorEntries: [],
    });
    const strict = await run({ source, json: {}, target: {}, aux: { user: 'bob' }, parameters: { IGNOREMISSINGSOURCE: 0, REPORTERRORS: 1 } });
    expect(strict.json).toMatchObject({
      status: 'error',
      errors: ['transform:3:1: property not found: source.{gone}'],
      errorEntries: [{ kind: 'action', message: 'property not found: source.{gone}', line: 3, column: 1, action: 'assign', position: '1' }],
    });
    const traced = await run({ source, json: {}, target: {}, aux: { user: 'cy' }, parameters: { IGNOREMISSINGSOURCE: 0, REPORTERRORS: 0 } });
    expect(traced.json).toMatchObject({
      status: 'ok',
      traceEntries: [{ category: 'xform', action: 'assign', position: '1', value: 'property not found: source.{gone}' }],
    });
  });

  it('refuses unknown fields, unknown parameters and bad values with a clear error', async () => {
    const source = `${head()}<assign value='1' property='target.{a}'/></transform>`;
    const unknown = await run({ source, json: {}, initialTarget: {} });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toMatch(/Unknown field initialTarget in the body of POST \/api\/iop\/transforms\/run \(accepted: .*target.*aux.*parameters/);
    const parameter = await run({ source, json: {}, parameters: { IGNOREMISSING: 1 } });
    expect(parameter.status).toBe(400);
    expect(errorOf(parameter)).toMatch(
      /Unknown field IGNOREMISSING in parameters .*accepted: IGNOREMISSINGSOURCE, REPORTERRORS, TREATEMPTYREPEATINGFIELDASNULL, GENERATEEMPTYSEGMENTS/,
    );
    const value = await run({ source, json: {}, parameters: { REPORTERRORS: 2 } });
    expect(value.status).toBe(400);
    expect(errorOf(value)).toMatch(/REPORTERRORS/);
    const target = await run({ source, json: {}, target: { a: 1 } });
    expect(target.status).toBe(400);
    expect(errorOf(target)).toMatch(/target \(the initial target\) is only used by create="existing" transforms; transform is create="new"/);
    const scalarTarget = await run({ source: `${head(" create='existing'")}</transform>`, json: {}, target: 'x' });
    expect(scalarTarget.status).toBe(400);
    expect(errorOf(scalarTarget)).toMatch(/target \(the initial target\) must be a JSON object or list/);
  });

  it('walks an object in IRIS collation order, numbers first and as numbers', async () => {
    const source = `${head()}<foreach property='source.{m()}' key='k'><assign value='k' property='target.{keys()}' action='append'/></foreach></transform>`;
    const reply = await run({ source, json: { m: { b: 0, '10': 0, a: 0, '9': 0, '07': 0, '-1.5': 0 } } });
    expect((reply.json as { target: unknown }).target).toEqual({ keys: [-1.5, 9, 10, '07', 'a', 'b'] });
  });

  it('compiles with positioned diagnostics: missing subtransform, unknown class, paths absent from the schema, unknown doc type', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } },
    };
    expect((await server.local('POST', '/api/iop/schemas/import', { package: 'demo', name: 'demo.In', schema })).status).toBe(200);
    const source = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='demo.In' targetDocType='demo.Nowhere'>
<assign value='source.{name}' property='target.{name}'/>
<foreach property='source.{lines()}' key='k'>
<assign value='source.{lines(k).price}' property='target.{total}'/>
<subtransform class='Demo.NotYet' sourceObj='source.{lines(k)}' targetObj='target.{line}'/>
</foreach>
<assign value='##class(Demo.Helpers).Clean(source.{name})' property='target.{clean}'/>
</transform>`;
    const reply = await server.local('POST', '/api/iop/transforms/compile', { source });
    expect(reply.status, reply.text).toBe(200);
    const { ok, diagnostics } = reply.json as {
      ok: boolean;
      diagnostics: { line: number; column: number; severity: string; message: string; position?: string }[];
    };
    expect(ok).toBe(false);
    expect(diagnostics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          line: 5,
          column: 22,
          severity: 'warning',
          position: '1.actions.1',
          message: expect.stringMatching(/^subtransform Demo\.NotYet does not exist in namespace USER/),
        }),
        expect.objectContaining({ line: 7, column: 16, severity: 'error', position: '2', message: expect.stringMatching(/^unknown class Demo\.Helpers/) }),
        expect.objectContaining({
          line: 4,
          severity: 'warning',
          position: '1.actions.0',
          message: 'source path "lines().price" is not in the schema of demo.In',
        }),
        expect.objectContaining({
          line: 1,
          severity: 'warning',
          message: expect.stringMatching(/^targetDocType demo\.Nowhere is not a schema of namespace USER/),
        }),
      ]),
    );
    expect(diagnostics).toHaveLength(4);
    // The error blocks saving; the warnings alone do not.
    expect((await server.local('PUT', '/api/iop/transforms/Demo.WithErrors', { source })).status).toBe(400);
    const withoutClass = source.replace(/<assign value='##class[^\n]*\n/, '');
    expect((await server.local('PUT', '/api/iop/transforms/Demo.Warned', { source: withoutClass })).status).toBe(200);
  });

  it('refuses a transform name with spaces and a class document stored under another name, storing nothing', async () => {
    const bare = `${head()}<assign value='1' property='target.{a}'/></transform>`;
    const spaced = await server.local('PUT', `/api/iop/transforms/${encodeURIComponent('Demo.My Transform')}`, { source: bare });
    expect(spaced.status).toBe(400);
    expect(errorOf(spaced)).toMatch(/Invalid transform name: "Demo.My Transform" cannot name a transform: it contains a space/);
    const cls = `Class Demo.Real Extends Ens.DataTransformDTL\n{\nXData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]\n{\n${bare}\n}\n}\n`;
    const renamed = await server.local('PUT', '/api/iop/transforms/Demo.Other', { source: cls });
    expect(renamed.status).toBe(400);
    expect(errorOf(renamed)).toContain(
      'The document is the class Demo.Real but is being stored as Demo.Other: store it under Demo.Real, or rename the class in the document',
    );
    const names = ((await server.local('GET', '/api/iop/transforms')).json as { transforms: { name: string }[] }).transforms.map((t) => t.name);
    expect(names).not.toContain('Demo.Other');
    expect(names).not.toContain('Demo.My Transform');
    expect((await server.local('PUT', '/api/iop/transforms/Demo.Real', { source: cls })).status).toBe(200);
  });
});

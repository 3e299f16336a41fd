import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import type { ClassDocument } from './class-documents.ts';
import { classify } from './class-documents.ts';

let h: Harness;
const compiled: ClassDocument[] = [];
beforeAll(async () => {
  h = await createHarness({
    classCompiler: async (document) => {
      compiled.push(document);
      return document.text.includes('broken')
        ? { console: [], errors: [`${document.name}: line 4: unknown action <bogus>`] }
        : { console: [`${document.name}: compiled as transform`], errors: [] };
    },
  });
});
afterAll(async () => h.close());

const dtlClass = [
  'Class Demo.Transform Extends Ens.DataTransformDTL [ DependsOn = IOP.Message ]',
  '{',
  'XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]',
  '{',
  '<transform sourceClass="A" targetClass="B"></transform>',
  '}',
  '}',
];
const plainClass = ['Class IOP.Utils Extends %RegisteredObject', '{', '}'];

async function put(name: string, payload: unknown, namespace = 'USER') {
  return h.app.inject({
    method: 'PUT',
    url: `/api/atelier/v1/${namespace}/doc/${name}?ignoreConflict=1`,
    headers: h.auth('admin'),
    payload: payload as object,
  });
}

async function compile(names: unknown, namespace = 'USER') {
  return h.app.inject({ method: 'POST', url: `/api/atelier/v1/${namespace}/action/compile?flags=cuk`, headers: h.auth('admin'), payload: names as object });
}

describe('class-document API', () => {
  it('PUT stores the document (201 new, 200 replaced) in the Atelier reply shape', async () => {
    const first = await put('IOP.Utils.cls', { enc: false, content: plainClass });
    expect(first.statusCode).toBe(201);
    const body = first.json();
    expect(body.status).toEqual({ errors: [], summary: '' });
    expect(body.console).toEqual([]);
    expect(body.result).toMatchObject({ name: 'IOP.Utils.cls', cat: 'CLS', enc: false });
    expect((await put('IOP.Utils.cls', { enc: false, content: plainClass })).statusCode).toBe(200);
    expect(await readFile(join(h.home, 'documents', 'USER', 'IOP.Utils.cls'), 'utf8')).toBe(plainClass.join('\n'));
  });

  it('PUT accepts base64 content when enc is true, and GET reads it back', async () => {
    const text = 'Class A.B {}\n';
    await put('A.B.cls', { enc: true, content: [Buffer.from(text).toString('base64')] });
    const back = await h.app.inject({ url: '/api/atelier/v1/USER/doc/A.B.cls', headers: h.auth('viewer') });
    expect(back.json().result.content).toEqual(['Class A.B {}', '']);
  });

  it('compile sends DTL transform classes to the compiler and reports the others as kept', async () => {
    await put('Demo.Transform.cls', { enc: false, content: dtlClass });
    const r = await compile(['IOP.Utils.cls', 'Demo.Transform.cls']);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.status).toEqual({ errors: [], summary: '' });
    expect(body.console).toEqual([
      'Compiling 2 document(s) in namespace USER',
      'IOP.Utils.cls: kept; Conveyor implements this class natively, nothing to compile',
      'Demo.Transform.cls: compiled as transform',
      'Compilation finished successfully',
    ]);
    expect(compiled.at(-1)).toMatchObject({ namespace: 'USER', name: 'Demo.Transform.cls', kind: 'dtl-transform' });
  });

  it('compile errors come back in status.errors', async () => {
    await put('Demo.Broken.cls', { enc: false, content: [...dtlClass.slice(0, 4), '<transform broken/>', '}', '}'] });
    const body = (await compile(['Demo.Broken.cls', 'Missing.cls'])).json();
    expect(body.status.errors.map((e: { error: string }) => e.error)).toEqual([
      'Demo.Broken.cls: line 4: unknown action <bogus>',
      'No document Missing.cls in namespace USER; upload it with PUT first',
    ]);
    expect(body.status.summary).toBe('Demo.Broken.cls: line 4: unknown action <bogus>');
  });

  it('refuses hostile names, bad bodies and unknown namespaces', async () => {
    const badName = await put('..%2F..%2Fevil.cls', { content: [] });
    expect(badName.statusCode).toBe(400);
    expect(badName.json().error).toMatch(/Invalid document name/);
    const badBody = await put('A.C.cls', { content: 'text' });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json().error).toBe('ERROR #INVALID_INPUT: content must be an array, not a string in the body of PUT /api/atelier/v1/:namespace/doc/:name');
    const notArray = await compile({ names: [] });
    expect(notArray.statusCode).toBe(400);
    expect(notArray.json().error).toMatch(/The body must be an array, not an object in the body of POST/);
    const unknown = await put('A.D.cls', { content: [] }, 'NOPE');
    expect(unknown.statusCode).toBe(404);
  });

  it('classifies DTL classes by Extends and XData DTL', () => {
    expect(classify('X.cls', dtlClass.join('\n'))).toBe('dtl-transform');
    expect(classify('X.cls', plainClass.join('\n'))).toBe('class');
    expect(classify('X.cls', 'Class X Extends Ens.DataTransformDTL\n{\n}')).toBe('class');
    expect(classify('X.inc', dtlClass.join('\n'))).toBe('other');
  });
});

describe('without a transform compiler', () => {
  it("a DTL class goes to the namespace's DTL, whose refusal is the compile error", async () => {
    const other = await createHarness();
    try {
      await other.app.inject({
        method: 'PUT',
        url: '/api/atelier/v1/USER/doc/Demo.Transform.cls',
        headers: other.auth('admin'),
        payload: { enc: false, content: dtlClass },
      });
      const body = (
        await other.app.inject({ method: 'POST', url: '/api/atelier/v1/USER/action/compile', headers: other.auth('admin'), payload: ['Demo.Transform.cls'] })
      ).json();
      // The fake engine of the harness has no DTL: its refusal comes back named after the document.
      expect(body.status.errors[0].error).toBe('Demo.Transform.cls: This fake engine has no DTL');
    } finally {
      await other.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { parseTransform } from './parse-transform.ts';
import { compileTransform, validateTransform } from './transform.ts';

const doc = (attrs: string, body = `<assign value='"x"' property='target.{y}'/>`): string =>
  `<transform sourceClass='IOP.Message' targetClass='IOP.Message' targetDocType='demo.Out' ${attrs}>${body}</transform>`;

describe('compileTransform and runs', () => {
  it('creates a new target, a copy of the source, or uses the caller target', async () => {
    const source = { a: { b: 1 } };
    const copy = await compileTransform(parseTransform(doc(`create='copy'`))).run(source);
    expect(copy.target).toEqual({ a: { b: 1 }, y: 'x' });
    expect(copy.target).not.toBe(source);
    expect((await compileTransform(parseTransform(doc(`create='new'`))).run(source)).target).toEqual({ y: 'x' });
    const mine = { keep: true };
    const existing = await compileTransform(parseTransform(doc(`create='existing'`))).run(source, { target: mine });
    expect(existing.target).toBe(mine);
    expect(mine).toEqual({ keep: true, y: 'x' });
  });

  it('refuses create="existing" without a target, with an error result', async () => {
    const r = await compileTransform(parseTransform(doc(`create='existing'`), 'e.dtl')).run({});
    expect(r.status).toBe('error');
    expect(r.errors[0]).toMatchObject({
      kind: 'runtime',
      document: 'e.dtl',
      line: 1,
      column: 1,
      message: `create="existing" needs the caller's target, and none was given`,
    });
  });

  it('names the target class: the doc type for IOP.Message, the class otherwise', async () => {
    expect((await compileTransform(parseTransform(doc(''))).run({})).targetClassname).toBe('demo.Out');
    const plain = `<transform sourceClass='IOP.Message' targetClass='Ens.StringResponse'><assign value='source.{s}' property='target.StringValue'/></transform>`;
    const r = compileTransform(parseTransform(plain)).runSync({ s: 'Foo' });
    expect(r).toEqual({ status: 'ok', errors: [], target: { StringValue: 'Foo' }, targetClassname: 'Ens.StringResponse', trace: [] });
  });

  it('runs a class document with the parameters it declares', async () => {
    const cls = `Class Demo.Strict Extends Ens.DataTransformDTL [ DependsOn = IOP.Message ]
{
Parameter IGNOREMISSINGSOURCE = 0;
Parameter REPORTERRORS = 1;
XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]
{
<transform sourceClass='IOP.Message' targetClass='IOP.Message'>
<assign value='source.{gone}' property='target.{g}'/>
</transform>
}
}`;
    const compiled = compileTransform(parseTransform(cls, 'Demo.Strict.cls'));
    expect(compiled.name).toBe('Demo.Strict');
    const r = await compiled.run({});
    expect(r.errors).toEqual([
      { kind: 'action', message: 'property not found: source.{gone}', document: 'Demo.Strict.cls', line: 8, column: 1, action: 'assign', position: '0' },
    ]);
  });

  it('refuses runSync for transforms that need asynchronous hooks', () => {
    const compiled = compileTransform(parseTransform(doc('', `<sql><![CDATA[SELECT a INTO :a FROM t]]></sql>`)));
    expect(compiled.usesSql).toBe(true);
    expect(() => compiled.runSync({})).toThrow(/call run\(\), not runSync\(\)/);
  });

  it('validateTransform lists warnings and errors without throwing', () => {
    const d = validateTransform(parseTransform(doc(`foo='1'`, `<assign value='..Nope()' property='target.{a}'/>`), 'v.dtl'));
    expect(d.map((x) => `${x.severity} ${x.message}`)).toEqual(['warning unknown attribute "foo" on <transform> is ignored', 'error unknown function ..Nope']);
  });

  it('warns when an IOP.Message target has no doc type', () => {
    const d = validateTransform(parseTransform(`<transform sourceClass='IOP.Message' targetClass='IOP.Message'/>`, 'w.dtl'));
    expect(d).toEqual([
      {
        document: 'w.dtl',
        line: 1,
        column: 1,
        severity: 'warning',
        message: 'targetClass is IOP.Message but targetDocType is empty: the target will have no message class',
      },
    ]);
  });

  it('keeps runs independent: locals and targets do not leak between runs', async () => {
    const compiled = compileTransform(
      parseTransform(doc('', `<if condition='$DATA(seen)'><true><assign value='1' property='target.{leak}'/></true></if><assign value='1' property='seen'/>`)),
    );
    await compiled.run({});
    expect((await compiled.run({})).target).toEqual({});
  });
});

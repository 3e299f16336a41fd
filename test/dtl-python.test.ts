/**
 * Python in transforms against a real python3 (the test host of test/dtl/vector-host.ts): Python
 * expressions, a Python <code> block that changes the target and the locals, and a Python error
 * turned into a positioned runtime error.
 */
import { describe, expect, it } from 'vitest';
import { compileTransform, parseTransform } from '../src/dtl/index.ts';
import { runPython } from './dtl/vector-host.ts';

const T = (body: string): string =>
  `<transform sourceClass='IOP.Message' targetClass='IOP.Message' language='python'>\n<pyFromImport>import math</pyFromImport>\n${body}\n</transform>`;

describe('Python in DTL (real python3)', () => {
  it('runs a Python <code> block that sets target values and locals, with the transform imports', async () => {
    const compiled = compileTransform(
      parseTransform(
        T(`<code><![CDATA[
total = sum(i["qty"] for i in source.GetValueAt("items"))
target.SetValueAt(total, "total")
target.SetValueAt(math.sqrt(16), "root")
]]></code>
<assign value='total*2' property='target.{double}' languageOverride='objectscript'/>`),
      ),
    );
    const r = await compiled.run({ items: [{ qty: 2 }, { qty: 5 }] }, { host: { runPython } });
    expect(r.errors).toEqual([]);
    expect(r.target).toEqual({ total: 7, root: 4, double: 14 });
  });

  it('reports a Python exception as a runtime error at the action', async () => {
    const compiled = compileTransform(parseTransform(T(`<assign value='1/0' property='target.{x}'/>`), 'py.dtl'));
    const r = await compiled.run({}, { host: { runPython } });
    expect(r.status).toBe('error');
    expect(r.errors[0]).toMatchObject({
      kind: 'runtime',
      document: 'py.dtl',
      line: 3,
      message: expect.stringContaining('<PYTHON EXCEPTION> ZeroDivisionError'),
    });
  });
});

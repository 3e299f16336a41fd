import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import type { DtlDiagnostic } from './diagnostics.ts';
import { parseTransform } from './parse-transform.ts';
import { compileTransform } from './transform.ts';
import type { CompiledTransform, DtlHost, DtlResult } from './types.ts';
import type { JsonValue, TransformParameters } from './index.ts';

function compile(body: string, options: { params?: Partial<TransformParameters>; attrs?: string; name?: string } = {}): CompiledTransform {
  const text = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' targetDocType='demo.Out'${options.attrs ?? ''}>\n${body}\n</transform>`;
  return compileTransform(parseTransform(text, options.name ?? 't.dtl', { parameters: options.params }));
}

function run(
  body: string,
  source: JsonValue = {},
  options: { params?: Partial<TransformParameters>; attrs?: string; host?: DtlHost; target?: JsonValue } = {},
): Promise<DtlResult> {
  return compile(body, options).run(source, { host: options.host, target: options.target });
}

function compileErrors(body: string): string[] {
  try {
    compile(body);
  } catch (error) {
    if (isConveyorError(error, 'ERR_DTL'))
      return (error.details as { diagnostics: DtlDiagnostic[] }).diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => `${d.line}:${d.column} ${d.message}`);
    throw error;
  }
  return [];
}

describe('<assign>', () => {
  it('sets target paths, plain properties, variables and the whole target', async () => {
    const r = await run(
      `<assign value='source.{a}' property='target.{x.y}'/>\n<assign value='"s"' property='target.StringValue'/>\n<assign value='2' property='n'/>\n<assign value='n*2' property='target.{n}'/>`,
      { a: 'A' },
    );
    expect(r.target).toEqual({ x: { y: 'A' }, StringValue: 's', n: 4 });
    const whole = await run(`<assign value='source' property='target'/>\n<assign value='1' property='target.{b}'/>`, { a: 1 });
    expect(whole.target).toEqual({ a: 1, b: 1 });
  });

  it('appends, inserts, removes and clears with key expressions', async () => {
    const r = await run(
      `<assign value='"x"' property='target.{l()}' action='append'/>\n<assign value='"w"' property='target.{l}' action='insert' key='1'/>\n<assign value='"v"' property='target.{d}' action='insert' key='"k"'/>\n<assign value='' property='target.{m}' action='clear'/>\n<assign value='' property='target.{r}' action='remove' key='"q"'/>\n<assign value='"Z"' property='target.{l}' action='set' key='2'/>`,
      {},
      { target: { m: { a: 1 }, r: { q: 1, z: 2 } }, attrs: ` create='existing'` },
    );
    expect(r.status).toBe('ok');
    expect(r.target).toEqual({ l: ['w', 'Z'], d: { k: 'v' }, m: {}, r: { z: 2 } });
  });

  it('records an action error (not a runtime error) when a write is impossible, and goes on', async () => {
    const r = await run(
      `<assign value='"s"' property='target.{a}'/>\n  <assign value='1' property='target.{a.b}'/>\n<assign value='2' property='target.{c}'/>`,
    );
    expect(r.status).toBe('error');
    expect(r.target).toEqual({ a: 's', c: 2 });
    expect(r.errors).toEqual([
      {
        kind: 'action',
        message: 'cannot set target.{a.b}: cannot set "b": the node is the string "s", not an object',
        document: 't.dtl',
        line: 3,
        column: 3,
        action: 'assign',
        position: '1',
      },
    ]);
  });

  it('copies structures instead of sharing them', async () => {
    const source = { o: { v: 1 } };
    const r = await run(`<assign value='source.{o}' property='target.{o}'/>\n<assign value='5' property='target.{o.v}'/>`, source);
    expect(r.target).toEqual({ o: { v: 5 } });
    expect(source.o.v).toBe(1);
  });

  it('assigns into local arrays and reads them back', async () => {
    const r = await run(
      `<foreach property='source.{l()}' key='k'><assign value='k' property='pos(source.{l(k)})'/></foreach>\n<assign value='pos("b")' property='target.{b}'/>\n<assign value='$GET(pos("z"),0)' property='target.{z}'/>`,
      { l: ['a', 'b'] },
    );
    expect(r.target).toEqual({ b: 2, z: 0 });
  });

  it('refuses a collection action on a variable and a write into source, at compile time', () => {
    expect(compileErrors(`<assign value='1' property='total' action='append'/>`)).toEqual([
      '2:1 action "append" needs a collection property, not the variable "total"',
    ]);
    expect(compileErrors(`<assign value='1' property='source.{a}'/>`)).toEqual([expect.stringMatching(/^2:29 property must be a target path/)]);
  });
});

describe('missing-source parameters', () => {
  const body = `<assign value='source.{gone}' property='target.{g}'/>\n<assign value='"x"_source.{gone}' property='target.{e}'/>`;

  it('IGNOREMISSINGSOURCE=1 skips a direct copy of an absent source', async () => {
    const r = await run(body, {}, { params: { IGNOREMISSINGSOURCE: 1 } });
    expect(r).toMatchObject({ status: 'ok', target: { e: 'x' }, errors: [] });
  });

  it('IGNOREMISSINGSOURCE=0 with REPORTERRORS=1 reports "property not found" with the position', async () => {
    const r = await run(body, {}, { params: { IGNOREMISSINGSOURCE: 0, REPORTERRORS: 1 } });
    expect(r.status).toBe('error');
    expect(r.errors).toEqual([
      { kind: 'action', message: 'property not found: source.{gone}', document: 't.dtl', line: 2, column: 1, action: 'assign', position: '0' },
    ]);
  });

  it('REPORTERRORS=0 turns the errors into xform traces and returns ok', async () => {
    const r = await run(body, {}, { params: { IGNOREMISSINGSOURCE: 0, REPORTERRORS: 0 } });
    expect(r.status).toBe('ok');
    expect(r.trace).toEqual([
      {
        category: 'xform',
        action: 'assign',
        position: '0',
        value: 'property not found: source.{gone}',
        text: 't.dtl:2:1: property not found: source.{gone}',
        line: 2,
      },
    ]);
  });

  it('GENERATEEMPTYSEGMENTS=1 writes "" for the absent source', async () => {
    const r = await run(body, {}, { params: { IGNOREMISSINGSOURCE: 1, GENERATEEMPTYSEGMENTS: 1 } });
    expect(r.target).toEqual({ g: '', e: 'x' });
  });
});

describe('TREATEMPTYREPEATINGFIELDASNULL', () => {
  const body = `<assign value='source.{codes()}' property='target.{codes()}'/>\n<foreach property='source.{note()}' key='k'><assign value='k' property='target.{seen()}' action='append'/></foreach>`;

  it('0: an empty repeating source still writes [] and an empty scalar iterates once', async () => {
    expect((await run(body, { codes: [], note: '' }, { params: { TREATEMPTYREPEATINGFIELDASNULL: 0 } })).target).toEqual({ codes: [], seen: [1] });
  });

  it('1: neither the shortcut copy nor the loop runs', async () => {
    expect((await run(body, { codes: [], note: '' }, { params: { TREATEMPTYREPEATINGFIELDASNULL: 1 } })).target).toEqual({});
    expect((await run(body, { codes: ['a'], note: 'x' }, { params: { TREATEMPTYREPEATINGFIELDASNULL: 1 } })).target).toEqual({ codes: ['a'], seen: [1] });
  });
});

describe('<foreach>', () => {
  it('iterates 1-based over lists, nests with outer keys, and leaves the key "" when done', async () => {
    const r = await run(
      `<foreach property='source.{o()}' key='k1'><foreach property='source.{o(k1).l()}' key='k2'><assign value='k1_"."_k2_"="_source.{o(k1).l(k2)}' property='target.{out()}' action='append'/></foreach></foreach>\n<assign value='"["_k1_"]"' property='target.{after}'/>`,
      { o: [{ l: ['a', 'b'] }, { l: ['c'] }] },
    );
    expect(r.target).toEqual({ out: ['1.1=a', '1.2=b', '2.1=c'], after: '[]' });
  });

  it('iterates object members in collation order and accepts unload', async () => {
    const r = await run(`<foreach property='source.{d()}' key='k' unload='1'><assign value='k' property='target.{keys()}' action='append'/></foreach>`, {
      d: { b: 1, '10': 1, '2': 1, a: 1 },
    });
    expect(r.target).toEqual({ keys: [2, 10, 'a', 'b'] });
  });

  it('walks object keys like $ORDER: numbers as numbers, on from a removed key, the empty key skipped', async () => {
    const r = await run(
      `<assign value='source.{d}' property='target.{d}'/>
<foreach property='target.{d()}' key='k'><assign value='k' property='target.{keys()}' action='append'/><if condition='k=1.5'><true><assign property='target.{d}' action='remove' key='k'/><assign property='target.{d}' action='remove' key='"07"'/></true></if></foreach>`,
      { d: { '07': 0, x: 0, '1.5': 0, '-3': 0, '': 0, '.5': 0 } },
    );
    expect(r.target).toMatchObject({ keys: [-3, 0.5, 1.5, 'x'] });
  });

  it('re-examines the collection at each step (appending inside the body extends the loop)', async () => {
    const r = await run(
      `<assign value='source.{l}' property='target.{l}'/>\n<foreach property='target.{l()}' key='k'><if condition='k=1'><true><assign value='"z"' property='target.{l()}' action='append'/></true></if></foreach>\n<assign value='k' property='target.{k}'/>`,
      { l: ['a'] },
    );
    expect(r.target).toEqual({ l: ['a', 'z'], k: '' });
  });

  it('breaks out of the innermost loop only, keeping the key', async () => {
    const r = await run(
      `<foreach property='source.{o()}' key='i'><foreach property='source.{o()}' key='j'><if condition='j=2'><true><break/></true></if><assign value='i_j' property='target.{p()}' action='append'/></foreach></foreach>`,
      { o: [1, 2, 3] },
    );
    expect(r.target).toEqual({ p: ['11', '21', '31'] });
  });

  it('refuses a property that is not a collection path', () => {
    expect(compileErrors(`<foreach property='1+1' key='k'/>`)).toEqual([expect.stringMatching(/^2:20 foreach property must be a collection path/)]);
    expect(compileErrors(`<foreach property='source.{l()}' key='a b'/>`)).toEqual([expect.stringMatching(/^2:39 foreach key must be a variable name/)]);
  });
});

describe('control actions', () => {
  it('<if> runs one branch; a missing branch does nothing', async () => {
    const r = await run(
      `<if condition='source.{n}&gt;1'><true><assign value='"big"' property='target.{a}'/></true><false><assign value='"small"' property='target.{a}'/></false></if>\n<if condition='0'><true><assign value='1' property='target.{b}'/></true></if>`,
      { n: 5 },
    );
    expect(r.target).toEqual({ a: 'big' });
  });

  it('<switch> runs the first true case, else the default; disabled cases are skipped', async () => {
    const body = (n: number): string =>
      `<switch><case condition='${n}=1' disabled='1'><assign value='"off"' property='target.{c}'/></case><case condition='${n}=1'><assign value='"one"' property='target.{c}'/></case><case condition='1'><assign value='"any"' property='target.{c}'/></case><default><assign value='"def"' property='target.{c}'/></default></switch>`;
    expect((await run(body(1))).target).toEqual({ c: 'one' });
    expect((await run(body(2))).target).toEqual({ c: 'any' });
    const noDefault = await run(
      `<switch><case condition='0'><assign value='1' property='target.{c}'/></case><default><assign value='"d"' property='target.{c}'/></default></switch>`,
    );
    expect(noDefault.target).toEqual({ c: 'd' });
  });

  it('<break> outside a loop ends the transform with status ok', async () => {
    const r = await run(`<assign value='1' property='target.{a}'/>\n<group><break/></group>\n<assign value='2' property='target.{b}'/>`);
    expect(r).toMatchObject({ status: 'ok', target: { a: 1 } });
  });

  it('<trace>, <comment>, <group>, annotations and disabled actions', async () => {
    const r = await run(
      `<comment><annotation>no effect</annotation></comment>\n<trace value='"v="_source.{v}'/>\n<group disabled='1'><assign value='1' property='target.{x}'/></group>\n<group><annotation>g</annotation><assign value='2' property='target.{y}'/></group>`,
      { v: 7 },
    );
    expect(r.target).toEqual({ y: 2 });
    expect(r.trace).toEqual([{ category: 'user', action: 'trace', position: '1', value: 'v=7', text: 'v=7', line: 3 }]);
  });
});

describe('runtime errors', () => {
  it('end the run with status error whatever REPORTERRORS says, keeping the partial target', async () => {
    const r = await run(
      `<assign value='1' property='target.{a}'/>\n<assign value='1/0' property='target.{b}'/>\n<assign value='3' property='target.{c}'/>`,
      {},
      { params: { REPORTERRORS: 0 } },
    );
    expect(r).toMatchObject({ status: 'error', target: { a: 1 } });
    expect(r.errors).toEqual([
      { kind: 'runtime', message: '<DIVIDE> division by zero', document: 't.dtl', line: 3, column: 17, action: 'assign', position: '1' },
    ]);
  });
});

describe('<subtransform>', () => {
  const child = compile(`<assign value='..ToUpper(source.{name})_aux' property='target.{label}'/>`, { name: 'Child.dtl' });
  const host: DtlHost = { subtransform: (name) => (name === 'Demo.Child' ? child : undefined) };

  it('calls the transform the host provides with the sub-object, aux, and stores its target', async () => {
    const r = await run(
      `<foreach property='source.{items()}' key='k'><subtransform class='Demo.Child' sourceObj='source.{items(k)}' targetObj='target.{lines(k)}' aux='"#"_k'/></foreach>`,
      { items: [{ name: 'a' }, { name: 'b' }] },
      { host },
    );
    expect(r.status).toBe('ok');
    expect(r.target).toEqual({ lines: [{ label: 'A#1' }, { label: 'B#2' }] });
    expect(compile(`<subtransform class='Demo.Child' sourceObj='source' targetObj='target.{x}'/>`).dependencies).toEqual(['Demo.Child']);
  });

  it('skips an absent source (IGNOREMISSINGSOURCE=1) and fails for an unknown class', async () => {
    expect((await run(`<subtransform class='Demo.Child' sourceObj='source.{nope}' targetObj='target.{x}'/>`, {}, { host })).target).toEqual({});
    const r = await run(`<subtransform class='No.Such' sourceObj='source' targetObj='target.{x}'/>`, {}, { host });
    expect(r.errors[0]).toMatchObject({ kind: 'runtime', message: '<CLASS DOES NOT EXIST> subtransform No.Such is not available', line: 2 });
  });

  it('passes the current target value to an existing-mode callee', async () => {
    const existing = compile(`<assign value='source.{v}' property='target.{added}'/>`, { attrs: ` create='existing'` });
    const r = await run(
      `<assign value='"keep"' property='target.{t.old}'/>\n<subtransform class='E' sourceObj='source' targetObj='target.{t}'/>`,
      { v: 1 },
      { host: { subtransform: () => existing } },
    );
    expect(r.target).toEqual({ t: { old: 'keep', added: 1 } });
  });
});

describe('<code>, <sql> and Python', () => {
  it('runs the ObjectScript <code> subset sharing variables with actions', async () => {
    const r = await run(
      `<assign value='3' property='n'/>\n<code><![CDATA[ Set s = 0\n For i=1:1:n { Set s = s + i }\n Do target.SetValueAt(s,"sum")]]></code>\n<assign value='s*2' property='target.{twice}'/>`,
    );
    expect(r.target).toEqual({ sum: 6, twice: 12 });
  });

  it('reports an unsupported <code> statement at its line', () => {
    expect(compileErrors(`<code><![CDATA[ Set a=1\n Lock ^X]]></code>`)).toEqual([expect.stringMatching(/^3:2 unsupported statement "Lock \^X"/)]);
  });

  it('runs <sql> through the host and sets SQLCODE', async () => {
    const queries: unknown[] = [];
    const host: DtlHost = {
      runSql: (q) => {
        queries.push(q);
        return q.params[0] === 'B' ? ['Bravo'] : undefined;
      },
    };
    const body = `<assign value='source.{c}' property='code'/>\n<sql><![CDATA[SELECT Description INTO :d FROM Demo.Codes WHERE Code = :code]]></sql>\n<assign value='SQLCODE' property='target.{sqlcode}'/>\n<assign value='$GET(d,"none")' property='target.{d}'/>`;
    expect((await run(body, { c: 'B' }, { host })).target).toEqual({ sqlcode: 0, d: 'Bravo' });
    expect((await run(body, { c: 'Z' }, { host })).target).toEqual({ sqlcode: 100, d: 'none' });
    expect(queries[0]).toEqual({ text: 'SELECT Description FROM Demo.Codes WHERE Code = ?', params: ['B'], columns: 1 });
    const noHook = await run(body, { c: 'B' });
    expect(noHook.errors[0]!.message).toBe('<SQL> this host cannot run <sql> (no runSql hook)');
  });

  it('hands Python expressions and code to the host, and switches language per action', async () => {
    const requests: unknown[] = [];
    const host: DtlHost = {
      runPython: async (req) => {
        requests.push(req);
        return req.mode === 'eval' ? { value: `py:${req.code}` } : { target: { ...(req.target as object), fromCode: true }, locals: { z: 9 } };
      },
    };
    const r = await run(
      `<assign value='source.x' property='target.{a}'/>\n<assign value='..ToUpper("b")' property='target.{b}' languageOverride='objectscript'/>\n<code><![CDATA[target.x = 1]]></code>\n<assign value='z' property='target.{z}' languageOverride='objectscript'/>`,
      { x: 1 },
      { host, attrs: ` language='python'` },
    );
    expect(r.target).toEqual({ a: 'py:source.x', b: 'B', fromCode: true, z: 9 });
    expect(requests[0]).toMatchObject({ mode: 'eval', code: 'source.x', source: { x: 1 }, target: {}, locals: {} });
    const noHook = await run(`<assign value='1' property='target.{a}'/>`, {}, { attrs: ` language='python'` });
    expect(noHook.errors[0]!.message).toMatch(/cannot run Python/);
  });
});

describe('compile-time validation', () => {
  it('points into attribute values at the source column, also after XML entities', () => {
    expect(compileErrors(`<if condition='(source.{a}&gt;1)&amp;&amp;..Nope()'><true/></if>`)).toEqual(['2:43 unknown function ..Nope']);
  });

  it('reports every bad expression, path and function at once, each at its position', () => {
    expect(
      compileErrors(
        `<assign value='..Nope(1)' property='target.{a}'/>\n<assign value='1' property='target.{a..b}'/>\n<if condition='(1'><true/></if>\n<trace value='$ZZ'/>`,
      ),
    ).toEqual([
      '2:16 unknown function ..Nope',
      '3:39 unexpected "." in path "a..b"',
      '4:18 expected ")" to close "(" but the expression ended',
      '5:15 unknown special variable $ZZ',
    ]);
  });
});

describe('the structured trace and positions', () => {
  it('names the action and its position in the graph for every trace entry, with the traced value as JSON', async () => {
    const r = await run(
      `<foreach property='source.{l()}' key='k'>\n<if condition='k=2'><true><trace value='source.{l(k)}'/></true><false><code><![CDATA[ $$$TRACE("at "_k)]]></code></false></if>\n</foreach>\n<switch><case condition='1'><trace value='source.{o}'/></case></switch>`,
      { l: ['a', 'b'], o: { x: [1] } },
    );
    expect(r.trace.map(({ category, action, position, value }) => ({ category, action, position, value }))).toEqual([
      { category: 'user', action: 'code', position: '0.actions.0.whenFalse.0', value: 'at 1' },
      { category: 'user', action: 'trace', position: '0.actions.0.whenTrue.0', value: 'b' },
      { category: 'user', action: 'trace', position: '1.cases.0.actions.0', value: { x: [1] } },
    ]);
    expect(r.trace[2]!.text).toBe('{"x":[1]}');
  });

  it('names the failing action of a runtime error, also inside a loop', async () => {
    const r = await run(
      `<assign value='1' property='target.{a}'/>\n<foreach property='source.{l()}' key='k'><assign value='1/source.{l(k)}' property='target.{b}'/></foreach>`,
      {
        l: [1, 0],
      },
    );
    expect(r.errors).toMatchObject([{ kind: 'runtime', action: 'assign', position: '1.actions.0' }]);
  });

  it('reports compile errors with the position of their action', () => {
    let diagnostics: DtlDiagnostic[] = [];
    try {
      compile(`<assign value='1' property='target.{a}'/>\n<group><assign value='..Nope()' property='target.{b}'/></group>`);
    } catch (error) {
      diagnostics = (error as { details: { diagnostics: DtlDiagnostic[] } }).details.diagnostics;
    }
    expect(diagnostics).toMatchObject([{ severity: 'error', message: 'unknown function ..Nope', position: '1.actions.0', line: 3 }]);
  });
});

describe('parameters per run', () => {
  const body = `<assign value='source.{gone}' property='target.{g}'/>\n<foreach property='source.{e}' key='k'><assign value='k' property='target.{seen}'/></foreach>`;

  it('override the transform’s own parameters for one run only', async () => {
    const compiled = compile(body, { params: { IGNOREMISSINGSOURCE: 1, REPORTERRORS: 1, TREATEMPTYREPEATINGFIELDASNULL: 0 } });
    expect(await compiled.run({ e: '' })).toMatchObject({ status: 'ok', target: { seen: 1 } });
    const strict = await compiled.run({ e: '' }, { parameters: { IGNOREMISSINGSOURCE: 0, TREATEMPTYREPEATINGFIELDASNULL: 1 } });
    expect(strict).toMatchObject({ status: 'error', target: {}, errors: [{ message: 'property not found: source.{gone}' }] });
    const generated = await compiled.run({}, { parameters: { GENERATEEMPTYSEGMENTS: 1 } });
    expect(generated.target).toEqual({ g: '' });
    const quiet = await compiled.run({}, { parameters: { IGNOREMISSINGSOURCE: 0, REPORTERRORS: 0 } });
    expect(quiet).toMatchObject({ status: 'ok', trace: [{ category: 'xform', action: 'assign', position: '0' }] });
    // The transform itself is unchanged by a run's parameters.
    expect(compiled.parameters).toMatchObject({ IGNOREMISSINGSOURCE: 1, REPORTERRORS: 1 });
    expect(await compiled.run({})).toMatchObject({ status: 'ok', target: {} });
  });
});

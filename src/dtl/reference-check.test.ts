import { describe, expect, it } from 'vitest';
import { parseTransform } from './parse-transform.ts';
import { checkReferences } from './reference-check.ts';
import { checkPathsAgainstSchemas } from './schema-check.ts';

const xml = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='demo.In' targetDocType='demo.Out'>
<subtransform class='Demo.Stored' sourceObj='source.{a}' targetObj='target.{a}'/>
<foreach property='source.{l()}' key='k'>
<subtransform class='Demo.Missing' sourceObj='source.{l(k)}' targetObj='target.{b}'/>
<assign value='##class(Demo.Util).Clean(source.{c})' property='target.{c}'/>
</foreach>
<assign value='##class(Ens.Util.Time).Nope(1)_##class(Ens.Util.FunctionSet).ToUpper("x")' property='target.{d}'/>
<code><![CDATA[ Set x = ##class(Other.Cls).Go()]]></code>
</transform>`;

describe('checkReferences', () => {
  const ast = parseTransform(xml, 'Demo.Refs');

  it('warns about a subtransform the namespace lacks and refuses classes nobody answers, positioned in the XML and the graph', () => {
    const found = checkReferences(ast, { namespace: 'USER', hasTransform: (name) => name === 'Demo.Stored' });
    expect(found.map(({ line, column, severity, position, message }) => ({ line, column, severity, position, message: message.slice(0, 40) }))).toEqual([
      { line: 4, column: 22, severity: 'warning', position: '1.actions.0', message: 'subtransform Demo.Missing does not exist' },
      { line: 5, column: 16, severity: 'error', position: '1.actions.1', message: 'unknown class Demo.Util: not a built-in ' },
      { line: 7, column: 16, severity: 'error', position: '2', message: 'unknown class method ##class(Ens.Util.Ti' },
      { line: 8, column: 25, severity: 'error', position: '3', message: 'unknown class Other.Cls: not a built-in ' },
    ]);
  });

  it('accepts the classes a host says it answers', () => {
    const found = checkReferences(ast, { namespace: 'USER', hasTransform: () => true, hasClass: (name) => name !== 'Other.Cls' });
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/^unknown class Other\.Cls/)]);
  });
});

describe('checkPathsAgainstSchemas', () => {
  it('names the action of each path the schema lacks', () => {
    const ast = parseTransform(
      `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='demo.In'>\n<if condition='1'><true><assign value='source.{nope}' property='target.{x}'/></true></if>\n</transform>`,
    );
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(checkPathsAgainstSchemas(ast, { source: schema })).toMatchObject([
      { line: 2, severity: 'warning', position: '0.whenTrue.0', message: 'source path "nope" is not in the schema of demo.In' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { interpretTransform } from './interpret.ts';
import { parseTransform } from './parse-transform.ts';

const T = (body: string): string => `<transform sourceClass='A' targetClass='B'>${body}</transform>`;

describe('interpretTransform', () => {
  it('walks the model and gives the same results as the compiled closures', () => {
    const ast = parseTransform(
      T(
        `<assign value='0' property='t'/><foreach property='source.{l()}' key='k'><if condition='k=3'><true><break/></true></if><assign value='t+source.{l(k)}' property='t'/></foreach><assign value='t_"/"_k' property='target.{r}'/><trace value='$CASE(t,3:"three",:"?")'/>`,
      ),
    );
    const r = interpretTransform(ast).run({ l: [1, 2, 3, 4] });
    expect(r).toMatchObject({ status: 'ok', target: { r: '3/3' }, trace: [{ category: 'user', text: 'three' }] });
  });

  it('reports runtime errors with positions', () => {
    const r = interpretTransform(parseTransform(T(`<assign value='x' property='target.{a}'/>`), 'i.dtl')).run({});
    expect(r.errors).toEqual([{ kind: 'runtime', message: '<UNDEFINED> x', document: 'i.dtl', line: 1, column: 59, action: 'assign', position: '0' }]);
  });

  it('refuses what only the compiler runs', () => {
    expect(() => interpretTransform(parseTransform(T(`<code><![CDATA[ Set a=1]]></code>`), 'c.dtl'))).toThrow(
      /c\.dtl:1:\d+: the AST interpreter does not run <code>/,
    );
  });
});

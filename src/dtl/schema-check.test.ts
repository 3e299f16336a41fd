import { describe, expect, it } from 'vitest';
import { parseTransform } from './parse-transform.ts';
import { checkPathsAgainstSchemas } from './schema-check.ts';

const ORDER = {
  type: 'object',
  properties: { id: { type: 'string' }, items: { type: 'array', items: { $ref: '#/$defs/Item' } } },
  $defs: { Item: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } } },
};
const INVOICE = {
  type: 'object',
  properties: { lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } }, total: { type: 'number' } },
};

describe('checkPathsAgainstSchemas', () => {
  it('warns, at their positions, about paths the doc-type schemas do not describe', () => {
    const ast = parseTransform(
      `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='demo.Order' targetDocType='demo.Invoice'>
<foreach property='source.{items()}' key='k'>
<assign value='source.{items(k).skew}' property='target.{lines(k).sku}'/>
<assign value='..ToUpper(source.{items(k).sku})_source.{id}' property='target.{lines(k).label}'/>
</foreach>
<if condition='source.{items("*")}&gt;0'><true><assign value='source.{items}' property='target.{copy}'/></true></if>
</transform>`,
      'order.dtl',
    );
    const warnings = checkPathsAgainstSchemas(ast, { source: ORDER, target: INVOICE });
    expect(warnings.map((w) => `${w.line}:${w.column} ${w.message}`)).toEqual([
      '3:16 source path "items().skew" is not in the schema of demo.Order',
      '4:72 target path "lines().label" is not in the schema of demo.Invoice',
      '6:89 target path "copy" is not in the schema of demo.Invoice',
    ]);
    expect(warnings.every((w) => w.severity === 'warning' && w.document === 'order.dtl')).toBe(true);
  });

  it('checks only the sides it has a schema for', () => {
    const ast = parseTransform(`<transform sourceClass='A' targetClass='B'><assign value='source.{x}' property='target.{y}'/></transform>`);
    expect(checkPathsAgainstSchemas(ast, {})).toEqual([]);
    expect(checkPathsAgainstSchemas(ast, { target: INVOICE }).map((w) => w.message)).toEqual(['target path "y" is not in the schema of B']);
  });
});

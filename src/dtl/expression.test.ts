import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { checkExpression, compileExpression } from './expression.ts';

const order = { document: { Name: 'Ann', items: [{ sku: 'A1' }, { sku: 'B2' }], total: 12.5 }, source: 'FileIn', messageClass: 'Demo.Order' };

describe('compileExpression (the rule conditions entry point)', () => {
  it('reads Document, source, Source and MsgClass', () => {
    expect(compileExpression('Document.{items(2).sku}').evaluate(order)).toBe('B2');
    expect(compileExpression('source.{Name}_"/"_Source_"/"_MsgClass').evaluate(order)).toBe('Ann/FileIn/Demo.Order');
    expect(compileExpression('Document.total*2').evaluate(order)).toBe(25);
  });

  it('accepts function-set calls with and without the two dots', () => {
    expect(compileExpression('Contains(Document.Name,"nn") && ..StartsWith(Source,"File")').test(order)).toBe(true);
    expect(compileExpression('DoesNotContain(Document.Name,"nn")').test(order)).toBe(false);
    expect(compileExpression('Document.{items("*")}=2').test(order)).toBe(true);
  });

  it("reads IRIS's rule syntax: operator words between operands, != and a leading !, precedence", () => {
    expect(compileExpression('ToUpper(Document.Name) Contains ToUpper("nn")').test(order)).toBe(true);
    expect(compileExpression('Document.Name In "Bob,Ann" && (Source StartsWith "File")').test(order)).toBe(true);
    expect(compileExpression('Document.Name NotIn("Bob,Ann")').test(order)).toBe(false);
    expect(compileExpression('Document.Name DoesNotContain "x"').test(order)).toBe(true);
    expect(compileExpression('Document.Name!="Ann"').test(order)).toBe(false);
    expect(compileExpression('!(Document.total>20)').test(order)).toBe(true);
    // Comparisons bind before && (left to right, ((12.5>10)&&12.5)<12 would be true).
    expect(compileExpression('Document.total>10&&Document.total<12').test(order)).toBe(false);
    // A word is an operator only between operands: as a property or a variable it is a name.
    expect(compileExpression('Document.In_"x"').evaluate(order)).toBe('x');
    expect(checkExpression('Document.Name Contains')).toMatchObject([{ message: 'unexpected "Contains" after the expression' }]);
  });

  it('gives named variables and the host to the expression', () => {
    const lookup = (table: string, key: string) => (table === 'T' && key === 'Ann' ? 'VIP' : undefined);
    expect(compileExpression('..Lookup("T",Document.Name)_RuleUserData').evaluate({ ...order, variables: { RuleUserData: '!' }, host: { lookup } })).toBe(
      'VIP!',
    );
  });

  it('reports a bad expression with its position in the caller document', () => {
    const problems = checkExpression('Document.Name = ..NoSuch(1)', { document: 'Demo.Rules', position: { line: 7, column: 20 } });
    expect(problems).toEqual([{ document: 'Demo.Rules', line: 7, column: 36, severity: 'error', message: 'unknown function ..NoSuch' }]);
    expect(checkExpression('1+')).toHaveLength(1);
    expect(checkExpression('1+1')).toEqual([]);
  });

  it('turns a runtime error into ERR_DTL naming the position', () => {
    const expr = compileExpression('Missing+1', { document: 'Demo.Rules', position: { line: 3, column: 5 } });
    let failure: unknown;
    try {
      expr.evaluate(order);
    } catch (error) {
      failure = error;
    }
    expect(isConveyorError(failure, 'ERR_DTL')).toBe(true);
    expect((failure as Error).message).toBe('Demo.Rules:3:5: <UNDEFINED> Missing');
  });
});

import { describe, expect, it } from 'vitest';
import { DtlSyntaxError } from './diagnostics.ts';
import { maxXmlChars, maxXmlDepth, readXml } from './xml-reader.ts';

describe('readXml', () => {
  it('gives every element and attribute value its line and column', () => {
    const root = readXml(`<transform a='1'>\n  <assign  value="x&amp;y" property='p'/>\n</transform>`);
    expect(root.name).toBe('transform');
    expect(root.pos).toEqual({ line: 1, column: 1 });
    expect(root.attributes.get('a')).toEqual({ value: '1', pos: { line: 1, column: 15 }, namePos: { line: 1, column: 12 } });
    const assign = root.children[0]!;
    expect(assign.pos).toEqual({ line: 2, column: 3 });
    expect(assign.attributes.get('value')).toMatchObject({ value: 'x&y', pos: { line: 2, column: 19 }, namePos: { line: 2, column: 12 } });
    // Decoded characters map back to the source: 'y' follows the 5-character &amp;.
    expect(assign.attributes.get('value')!.pos.map).toEqual([19, 20, 25, 26].map((column) => ({ line: 2, column })));
    expect(assign.attributes.get('property')!.pos).toEqual({ line: 2, column: 38 });
  });

  it('ignores namespaces and prefixes', () => {
    const root = readXml(`<dtl:transform xmlns:dtl="http://www.intersystems.com/dtl"><dtl:assign/></dtl:transform>`);
    expect(root.name).toBe('transform');
    expect(root.attributes.size).toBe(0);
    expect(root.children[0]!.name).toBe('assign');
  });

  it('keeps CDATA text and where it starts, without the blank text before it', () => {
    const root = readXml(`<code>\n<![CDATA[ Set x=1\n Set y=2]]></code>`);
    expect(root.text).toBe(' Set x=1\n Set y=2');
    expect(root.textPos).toEqual({ line: 2, column: 10 });
  });

  it('reports malformed XML with its position', () => {
    try {
      readXml(`<transform>\n  <assign></if>\n</transform>`);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DtlSyntaxError);
      expect((error as DtlSyntaxError).message).toMatch(/^malformed XML: /);
      expect((error as DtlSyntaxError).position.line).toBe(2);
    }
  });

  it('refuses a document without a root element', () => {
    expect(() => readXml('   ')).toThrow(DtlSyntaxError);
  });

  it('refuses XML nested deeper than the limit with a depth error at the element that goes too deep', () => {
    const nested = (depth: number) => `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
    expect(() => readXml(nested(maxXmlDepth))).not.toThrow();
    for (const depth of [maxXmlDepth + 1, 100_000]) {
      try {
        readXml(nested(depth));
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(DtlSyntaxError);
        expect((error as DtlSyntaxError).message).toBe(`XML nested too deeply: more than ${maxXmlDepth} elements inside one another`);
        expect((error as DtlSyntaxError).position).toEqual({ line: 1, column: 3 * maxXmlDepth + 1 });
      }
    }
  });

  it('refuses XML larger than the limit with a size error before parsing it', () => {
    const huge = `<a>${' '.repeat(maxXmlChars)}</a>`;
    expect(() => readXml(huge)).toThrow(`XML document too large: ${huge.length} characters, the limit is ${maxXmlChars}`);
  });
});

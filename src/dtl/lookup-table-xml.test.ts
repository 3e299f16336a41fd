import { describe, expect, it } from 'vitest';
import { parseLookupTableXml, serializeLookupTableXml } from './lookup-table-xml.ts';

describe('lookup-table XML', () => {
  it('reads an IRIS export with several tables', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<lookupTable>
<entry table="Gender" key="M">Male</entry>
<entry table="Gender" key="F">Female</entry>
<entry table="Codes" key="a&amp;b">x &lt; y</entry>
<entry table="Codes" key="empty"></entry>
</lookupTable>`;
    expect(parseLookupTableXml(xml)).toEqual({ Gender: { M: 'Male', F: 'Female' }, Codes: { 'a&b': 'x < y', empty: '' } });
  });

  it('round-trips through the writer, including characters that need escaping', () => {
    const tables = { T: { 'k"1': 'v & <w>', ' spaced ': '  two  ' }, A: { z: '1' } };
    const xml = serializeLookupTableXml(tables);
    expect(xml.split('\n')[2]).toBe('<entry table="A" key="z">1</entry>');
    expect(parseLookupTableXml(xml)).toEqual(tables);
  });

  it('reports a wrong root, a stray element, missing attributes and malformed XML with positions', () => {
    expect(() => parseLookupTableXml('<tables/>', 'f.xml')).toThrow('f.xml:1:1: expected a <lookupTable> root element, found <tables>');
    expect(() => parseLookupTableXml('<lookupTable>\n<row/></lookupTable>', 'f.xml')).toThrow(/^f\.xml:2:1: expected <entry/);
    expect(() => parseLookupTableXml('<lookupTable><entry key="k">v</entry></lookupTable>', 'f.xml')).toThrow(/needs a non-empty "table" attribute/);
    expect(() => parseLookupTableXml('<lookupTable><entry table="t">v</entry></lookupTable>', 'f.xml')).toThrow(/needs a non-empty "key" attribute/);
    expect(() => parseLookupTableXml('<lookupTable><entry>', 'f.xml')).toThrow(/^f\.xml:1:\d+: malformed XML/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseTestEnvelope } from './test-envelope.ts';

describe('parseTestEnvelope', () => {
  it('reads the spec envelope with a CDATA JSON document', () => {
    const xml = `<test><Message><json><![CDATA[ {"list_str":["toto","titi"],"post":{"Title":"foo","Selftext":"baz"}} ]]></json></Message></test>`;
    expect(parseTestEnvelope(xml)).toEqual({ list_str: ['toto', 'titi'], post: { Title: 'foo', Selftext: 'baz' } });
  });

  it('accepts a bare JSON text and a property list for plain classes', () => {
    expect(parseTestEnvelope(' [1, 2] ')).toEqual([1, 2]);
    expect(parseTestEnvelope('<test><Message><StringValue>Foo</StringValue></Message></test>')).toEqual({ StringValue: 'Foo' });
  });

  it('names the line and column where the JSON inside the envelope goes wrong', () => {
    expect(() => parseTestEnvelope('<test><Message><json><![CDATA[\n{"a": 1,\n "b": }]]></json></Message></test>', 'payload.xml')).toThrow(
      /^payload\.xml:3:7: the test message is not valid JSON/,
    );
    expect(() => parseTestEnvelope('{"a": [1, 2', 'inline')).toThrow(/^inline:1:12: /);
  });

  it('reports malformed XML and a wrong envelope shape', () => {
    expect(() => parseTestEnvelope('<test><Message>', 'p')).toThrow(/^p:1:\d+: malformed XML/);
    expect(() => parseTestEnvelope('<envelope/>', 'p')).toThrow('p:1:1: expected a <test> envelope, found <envelope>');
    expect(() => parseTestEnvelope('<test/>', 'p')).toThrow('p:1:1: <test> needs a <Message> element');
    expect(() => parseTestEnvelope('<test><Message><json/></Message></test>', 'p')).toThrow(/<json> is empty/);
  });
});

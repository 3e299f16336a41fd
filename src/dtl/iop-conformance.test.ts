/**
 * The transformation cases of IoP's end-to-end DTL suite (iop-reference §6.5, T1–T5), written here
 * as IRIS class documents of our own and run through the whole pipeline: class text → model →
 * compile → run.
 */
import { describe, expect, it } from 'vitest';
import { parseTransform } from './parse-transform.ts';
import { compileTransform } from './transform.ts';
import type { JsonValue } from './values.ts';

function cls(name: string, source: string, target: string, body: string, docTypes = ''): string {
  return `Class ${name} Extends Ens.DataTransformDTL [ DependsOn = IOP.Message ]
{

Parameter IGNOREMISSINGSOURCE = 1;

Parameter REPORTERRORS = 1;

Parameter TREATEMPTYREPEATINGFIELDASNULL = 0;

XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]
{
<transform sourceClass='${source}' targetClass='${target}' ${docTypes} create='new' language='objectscript' >
${body}
</transform>
}

}
`;
}

async function run(text: string, source: JsonValue): Promise<{ target: JsonValue; classname: string }> {
  const result = await compileTransform(parseTransform(text, 'case.cls')).run(source);
  expect(result.errors).toEqual([]);
  return { target: result.target, classname: result.targetClassname };
}

describe('IoP transformation cases', () => {
  it('T1: JSON document → Ens.StringResponse', async () => {
    const text = cls(
      'Case.SimpleGet',
      'IOP.Message',
      'Ens.StringResponse',
      `<assign value='source.{string}' property='target.StringValue' action='set' />`,
      `sourceDocType='fixtures.message.SimpleMessage'`,
    );
    expect(await run(text, { string: 'Foo', integer: 42 })).toEqual({ target: { StringValue: 'Foo' }, classname: 'Ens.StringResponse' });
  });

  it('T2 and T3: nested and indexed reads into Ens.StringRequest', async () => {
    const nested = cls(
      'Case.ComplexGet',
      'IOP.Message',
      'Ens.StringRequest',
      `<assign value='source.{post.Title}' property='target.StringValue' action='set' />`,
    );
    expect((await run(nested, { post: { Title: 'Foo' }, string: 'bar', list_str: ['Foo', 'Bar'] })).target).toEqual({ StringValue: 'Foo' });
    const indexed = cls(
      'Case.ComplexGetList',
      'IOP.Message',
      'Ens.StringRequest',
      `<assign value='source.{list_post(2).Title}' property='target.StringValue' action='set' />`,
    );
    expect((await run(indexed, { post: { Title: 'Foo' }, list_post: [{ Title: 'Bar' }, { Title: 'Foo' }] })).target).toEqual({ StringValue: 'Foo' });
  });

  it('T4: Ens.StringRequest → JSON document of the target doc type', async () => {
    const text = cls(
      'Case.SimpleSet',
      'Ens.StringRequest',
      'IOP.Message',
      `<assign value='source.StringValue' property='target.{string}' action='set' />`,
      `targetDocType='fixtures.message.SimpleMessage'`,
    );
    expect(await run(text, { StringValue: 'Foo' })).toEqual({ target: { string: 'Foo' }, classname: 'fixtures.message.SimpleMessage' });
  });

  it('T5: document → document keeps the number type and names the target class', async () => {
    const text = cls(
      'Case.SimpleSetVDoc',
      'IOP.Message',
      'IOP.Message',
      `<assign value='source.{string}' property='target.{string}' action='set' />\n<assign value='source.{integer}' property='target.{integer}' action='set' />`,
      `sourceDocType='fixtures.message.SimpleMessage' targetDocType='fixtures.message.SimpleMessage'`,
    );
    expect(await run(text, { string: 'Foo', integer: 42 })).toEqual({ target: { string: 'Foo', integer: 42 }, classname: 'fixtures.message.SimpleMessage' });
  });
});

import { describe, expect, it } from 'vitest';
import { withoutPositions } from './ast.ts';
import { parseTransform } from './parse-transform.ts';
import { serializeTransform, serializeTransformClass } from './serialize.ts';
import { compileTransform } from './transform.ts';

const EVERYTHING = `<transform sourceClass='IOP.Message' targetClass='Ens.StringRequest' sourceDocType='a.B' create='copy' language='python'>
<annotation>Top &amp; "notes" &lt;here&gt;</annotation>
<pyFromImport>import json</pyFromImport>
<assign value='source.{a} _ "it&apos;s"' property='target.{b}' action='set' key='' languageOverride='objectscript' />
<assign value='' property='target.{c}' action='remove' key='"k"' disabled='1'><annotation>gone</annotation></assign>
<foreach property='source.{l()}' key='k' unload='1'>
  <if condition='k&gt;1'><true><break/></true><false/></if>
</foreach>
<switch><case condition='1'><trace value='"t"'/></case><case condition='0' disabled='1'/><default/></switch>
<subtransform class='X.Y' sourceObj='source.{a}' targetObj='target.{x}' aux='1'/>
<code><![CDATA[ Set a = "]]]]><![CDATA[>"
 Set b=2]]></code>
<sql><![CDATA[SELECT a INTO :b FROM t WHERE c < 1]]></sql>
<comment><annotation>just a comment</annotation></comment>
<group disabled='true'><assign value='1' property='z'/></group>
</transform>`;

function roundTrip(text: string, name: string): void {
  const ast = parseTransform(text, name);
  const again = parseTransform(serializeTransform(ast), name, { parameters: ast.parameters });
  expect(withoutPositions(again)).toEqual(withoutPositions(ast));
}

describe('serializeTransform', () => {
  it('round-trips every element, attribute, annotation and CDATA body', () => {
    roundTrip(EVERYTHING, 'everything.dtl');
  });

  it('writes an IRIS class that reads back with its name, DependsOn and parameters', () => {
    const ast = parseTransform(EVERYTHING, 'x', { parameters: { IGNOREMISSINGSOURCE: 0, GENERATEEMPTYSEGMENTS: 1 } });
    const cls = serializeTransformClass({ ...ast, dependsOn: ['IOP.Message'] }, 'Demo.Everything');
    expect(cls).toMatch(/^Class Demo\.Everything Extends Ens\.DataTransformDTL \[ DependsOn = IOP\.Message \]\n/);
    expect(cls).toContain('Parameter GENERATEEMPTYSEGMENTS = 1;');
    const back = parseTransform(cls, 'Demo.Everything.cls');
    expect(back.className).toBe('Demo.Everything');
    expect(withoutPositions({ ...back, className: null, dependsOn: [] })).toEqual(withoutPositions(ast));
    expect(() =>
      compileTransform(
        parseTransform(
          serializeTransformClass(parseTransform(`<transform sourceClass='A' targetClass='B'><assign value='1' property='target.x'/></transform>`)),
        ),
      ),
    ).not.toThrow();
  });
});

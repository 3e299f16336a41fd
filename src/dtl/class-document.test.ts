import { describe, expect, it } from 'vitest';
import { readCarrier } from './class-document.ts';
import { DtlSyntaxError } from './diagnostics.ts';

const CLS = `/// A transform
Class Demo.Xform.OrderToInvoice Extends Ens.DataTransformDTL [ DependsOn = (IOP.Message, Ens.StringRequest) ]
{

Parameter IGNOREMISSINGSOURCE = 1;

Parameter REPORTERRORS = 0;

Parameter GENERATEEMPTYSEGMENTS = "1";

XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]
{
<?xml version="1.0" ?>
<transform sourceClass='IOP.Message' targetClass='IOP.Message' create='new' language='objectscript' >
<assign value='source.{a}' property='target.{b}' action='set' />
</transform>
}

}
`;

describe('readCarrier', () => {
  it('reads an IRIS class: name, DependsOn, parameters and the XData body at its real position', () => {
    const c = readCarrier(CLS);
    expect(c.carrier).toBe('class');
    expect(c.className).toBe('Demo.Xform.OrderToInvoice');
    expect(c.dependsOn).toEqual(['IOP.Message', 'Ens.StringRequest']);
    expect(c.parameters.IGNOREMISSINGSOURCE?.value).toBe(1);
    expect(c.parameters.REPORTERRORS?.value).toBe(0);
    expect(c.parameters.GENERATEEMPTYSEGMENTS?.value).toBe(1);
    expect(c.parameters.TREATEMPTYREPEATINGFIELDASNULL).toBeUndefined();
    expect(c.transform.pos).toEqual({ line: 14, column: 1 });
    expect(c.transform.children[0]!.pos).toEqual({ line: 15, column: 1 });
  });

  it('reads a Studio XML export', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Export generator="IRIS" version="26">
<Class name="Demo.X">
<Super>Ens.DataTransformDTL</Super>
<DependsOn>IOP.Message</DependsOn>
<Parameter name="REPORTERRORS"><Default>1</Default></Parameter>
<XData name="DTL">
<Data><![CDATA[<transform sourceClass='A' targetClass='B'>
<assign value='1' property='target.x'/>
</transform>]]></Data>
</XData>
</Class>
</Export>`;
    const c = readCarrier(xml);
    expect(c.carrier).toBe('export');
    expect(c.className).toBe('Demo.X');
    expect(c.dependsOn).toEqual(['IOP.Message']);
    expect(c.parameters.REPORTERRORS?.value).toBe(1);
    expect(c.transform.children[0]!.pos).toEqual({ line: 9, column: 1 });
  });

  it('reads a bare transform', () => {
    expect(readCarrier(`<transform sourceClass='A' targetClass='B'/>`).carrier).toBe('xml');
  });

  it('refuses a class that does not extend Ens.DataTransformDTL, naming the position', () => {
    const text = `\nClass A.B Extends Ens.BusinessProcess\n{\n}`;
    expect(() => readCarrier(text)).toThrow(/must extend Ens\.DataTransformDTL/);
    try {
      readCarrier(text);
    } catch (error) {
      expect((error as DtlSyntaxError).position.line).toBe(2);
    }
  });

  it('refuses a class without XData DTL, a non-integer parameter and a foreign root element', () => {
    expect(() => readCarrier('Class A.B Extends Ens.DataTransformDTL\n{\n}')).toThrow(/no "XData DTL" block/);
    expect(() => readCarrier(CLS.replace('REPORTERRORS = 0', 'REPORTERRORS = yes'))).toThrow(/REPORTERRORS must be an integer/);
    expect(() => readCarrier('<rule/>')).toThrow(/expected a <transform> root element, found <rule>/);
    expect(() => readCarrier('hello')).toThrow(/expected a "Class <name> Extends/);
  });
});

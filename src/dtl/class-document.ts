/**
 * The carriers a transform arrives in: a bare `<transform>` XML document, an IRIS class text
 * (`Class X Extends Ens.DataTransformDTL … XData DTL { … }`, the `.cls` export format) or a Studio
 * XML export (`<Export><Class><XData name="DTL"><Data><![CDATA[…]]>`). Each is reduced to the
 * transform XML plus the class facts; the XML is padded so that its line:column positions are
 * those of the original document.
 */
import { blank, classHeader, positionAt, splitNames, xdataBody } from './class-text.ts';
import { DtlSyntaxError, type Position } from './diagnostics.ts';
import { PARAMETER_NAMES, type ClassMethodNode, type ParameterName } from './ast.ts';
import { readClassMethods } from './class-methods.ts';
import { readXml, type XmlElement } from './xml-reader.ts';

export interface TransformCarrier {
  carrier: 'xml' | 'class' | 'export';
  className: string | null;
  dependsOn: string[];
  /** Parameters the class sets (absent ones default to 0). */
  parameters: Partial<Record<ParameterName, { value: number; pos: Position }>>;
  /** The transform element, already read. */
  transform: XmlElement;
  /** Class methods of a class text (callable as `..Name()`). */
  classMethods: ClassMethodNode[];
}

const BASE_CLASS = 'Ens.DataTransformDTL';

function parameterValue(name: string, raw: string, pos: Position): number {
  const text = raw.trim().replace(/^"(.*)"$/, '$1');
  if (!/^-?\d+$/.test(text)) throw new DtlSyntaxError(`parameter ${name} must be an integer, found "${raw.trim()}"`, pos);
  return Number(text);
}

function readClassText(text: string): TransformCarrier {
  const header = classHeader(text, BASE_CLASS, 'expected a "Class <name> Extends Ens.DataTransformDTL" header or a <transform> element');
  const dependsOn = /DependsOn\s*=\s*(\([^)]*\)|[%\w.]+)/.exec(header.rest);
  const parameters: TransformCarrier['parameters'] = {};
  for (const match of text.matchAll(/^[ \t]*Parameter\s+(\w+)(?:\s+As\s+[%\w.]+)?\s*=\s*([^;\n]*);/gm)) {
    const name = match[1] as ParameterName;
    if (!PARAMETER_NAMES.includes(name)) continue;
    const pos = positionAt(text, match.index);
    parameters[name] = { value: parameterValue(name, match[2]!, pos), pos };
  }
  return {
    carrier: 'class',
    className: header.name,
    dependsOn: dependsOn ? splitNames(dependsOn[1]!) : [],
    parameters,
    transform: readXml(xdataBody(text, 'DTL', 'transform')),
    classMethods: readClassMethods(text),
  };
}

function childNamed(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

function readExport(root: XmlElement): TransformCarrier {
  const cls = root.name === 'Class' ? root : root.children.find((c) => c.name === 'Class');
  if (!cls) throw new DtlSyntaxError('the XML export holds no <Class> element', root.pos);
  const className = cls.attributes.get('name')?.value ?? null;
  const xdata = cls.children.find((c) => c.name === 'XData' && c.attributes.get('name')?.value === 'DTL');
  const data = xdata && childNamed(xdata, 'Data');
  if (!data || data.textPos === null) throw new DtlSyntaxError(`class ${className ?? '?'} has no XData DTL block`, cls.pos);
  const parameters: TransformCarrier['parameters'] = {};
  for (const p of cls.children.filter((c) => c.name === 'Parameter')) {
    const name = p.attributes.get('name')?.value as ParameterName | undefined;
    if (!name || !PARAMETER_NAMES.includes(name)) continue;
    parameters[name] = { value: parameterValue(name, childNamed(p, 'Default')?.text ?? '0', p.pos), pos: p.pos };
  }
  const supers = splitNames(childNamed(cls, 'Super')?.text ?? '');
  if (supers.length > 0 && !supers.includes(BASE_CLASS)) {
    throw new DtlSyntaxError(`class ${className} must extend ${BASE_CLASS} (it extends ${supers.join(', ')})`, cls.pos);
  }
  const padding = '\n'.repeat(data.textPos.line - 1) + ' '.repeat(data.textPos.column - 1);
  const body = data.text.replace(/^\s*<\?xml[^?]*\?>/, (decl) => blank(decl));
  return {
    carrier: 'export',
    className,
    dependsOn: splitNames(childNamed(cls, 'DependsOn')?.text ?? ''),
    parameters,
    transform: readXml(padding + body),
    classMethods: [],
  };
}

/** Reads any carrier. Throws DtlSyntaxError with the position of the first problem. */
export function readCarrier(text: string): TransformCarrier {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('<')) return readClassText(text);
  const root = readXml(text.replace(/^\uFEFF/, ''));
  if (root.name === 'transform') return { carrier: 'xml', className: null, dependsOn: [], parameters: {}, transform: root, classMethods: [] };
  if (root.name === 'Export' || root.name === 'Class') return readExport(root);
  throw new DtlSyntaxError(`expected a <transform> root element, found <${root.name}>`, root.pos);
}

/**
 * Stage 1: XML text → a small element tree where every element and attribute carries its
 * line:column. Namespaces are accepted and ignored (an XData block has none, an exported file may
 * have `xmlns="http://www.intersystems.com/dtl"` or a prefix).
 *
 * Every XML document Conveyor reads (transforms, class documents, lookup tables, test messages)
 * comes through here, so the limits are here: a document deeper than `maxXmlDepth` elements or
 * longer than `maxXmlChars` characters is refused with a clear error before later stages (which walk
 * the tree recursively) could run out of stack or memory. Entities are never expanded beyond XML's
 * five predefined ones (saxes knows no DTD), so external entities and entity bombs cannot load anything.
 */
import { SaxesParser } from 'saxes';
import { DtlSyntaxError, type Position, type TextPosition } from './diagnostics.ts';

export interface XmlAttribute {
  value: string;
  /** Where the value starts (the character after the opening quote), with a decoding map if needed. */
  pos: TextPosition;
  /** Where the attribute's name starts. */
  namePos: Position;
}

export interface XmlElement {
  name: string;
  pos: Position;
  attributes: Map<string, XmlAttribute>;
  children: XmlElement[];
  /** Character data directly inside the element (text and CDATA, concatenated). */
  text: string;
  /** Where the character data starts (for `<code>` / `<sql>` bodies). */
  textPos: Position | null;
}

/** Deeper than any real transform or lookup table; far below what a recursive walk of the tree can take. */
export const maxXmlDepth = 256;
/** 16 Mi characters: many times a large lookup table; the element tree of more would cost hundreds of MB. */
export const maxXmlChars = 16 * 1024 * 1024;

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function positionOf(starts: number[], index: number): Position {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: index - starts[lo]! + 1 };
}

/** For each decoded character of an attribute value, its index in the raw text (plus the end). */
function decodingMap(raw: string): number[] {
  const map: number[] = [];
  for (let r = 0; r < raw.length;) {
    map.push(r);
    if (raw[r] === '&') {
      const semi = raw.indexOf(';', r);
      const entity = semi < 0 ? '' : raw.slice(r, semi + 1);
      // A character reference above U+FFFF decodes to two UTF-16 units.
      if (/^&#x?[0-9a-f]+;$/i.test(entity) && Number(entity.startsWith('&#x') ? `0x${entity.slice(3, -1)}` : entity.slice(2, -1)) > 0xffff) map.push(r);
      r = semi < 0 ? r + 1 : semi + 1;
    } else r += raw[r] === '\r' && raw[r + 1] === '\n' ? 2 : 1;
  }
  map.push(raw.length);
  return map;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Parses one XML document and returns its root element. Throws DtlSyntaxError on malformed XML. */
export function readXml(text: string): XmlElement {
  if (text.length > maxXmlChars) {
    throw new DtlSyntaxError(`XML document too large: ${text.length} characters, the limit is ${maxXmlChars}`, { line: 1, column: 1 });
  }
  const starts = lineStarts(text);
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let current: XmlElement | null = null;
  let failure: DtlSyntaxError | null = null;

  const addText = (chunk: string, startIndex: number): void => {
    const owner = stack[stack.length - 1];
    if (!owner) return;
    if (owner.textPos === null) {
      // Leading blank text (the newline before a CDATA body) is dropped so textPos matches text[0].
      if (chunk.trim() === '') return;
      owner.textPos = positionOf(starts, startIndex);
    }
    owner.text += chunk;
  };

  parser.on('opentagstart', (tag) => {
    const start = parser.position - tag.name.length - 2;
    current = { name: localName(tag.name), pos: positionOf(starts, start), attributes: new Map(), children: [], text: '', textPos: null };
  });
  parser.on('attribute', (attr) => {
    if (!current || attr.name === 'xmlns' || attr.name.startsWith('xmlns:')) return;
    const closing = parser.position - 1;
    const opening = text.lastIndexOf(text[closing] ?? '"', closing - 1);
    const name = text.lastIndexOf(attr.name, opening);
    const pos: TextPosition = positionOf(starts, opening + 1);
    const raw = text.slice(opening + 1, closing);
    if (raw !== attr.value) pos.map = decodingMap(raw).map((r) => positionOf(starts, opening + 1 + r));
    current.attributes.set(localName(attr.name), { value: attr.value, pos, namePos: positionOf(starts, name) });
  });
  parser.on('opentag', () => {
    if (!current) return;
    if (stack.length >= maxXmlDepth) {
      failure = new DtlSyntaxError(`XML nested too deeply: more than ${maxXmlDepth} elements inside one another`, current.pos);
      // Stops the parser at once: nothing of a document refused is read further.
      throw failure;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(current);
    else root = current;
    stack.push(current);
    current = null;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('cdata', (data) => addText(data, parser.position - 3 - data.length));
  parser.on('text', (data) => addText(data, Math.max(0, parser.position - 1 - data.length)));
  parser.on('error', (error) => {
    if (failure) return;
    const message = error.message.replace(/^[^:]*:\d+:\d+: /, '').replace(/\.$/, '');
    failure = new DtlSyntaxError(`malformed XML: ${message}`, { line: parser.line, column: parser.column + 1 });
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (!failure) throw error;
  }
  if (failure) throw failure;
  if (!root) throw new DtlSyntaxError('malformed XML: the document has no root element', { line: 1, column: 1 });
  return root;
}

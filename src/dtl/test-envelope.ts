/**
 * The portal's test payload (spec, DTL support §6): `<test><Message><json><![CDATA[ {…} ]]></json>
 * </Message></test>` → the JSON document. A message of a plain class may instead list its
 * properties (`<Message><StringValue>Foo</StringValue></Message>` → `{"StringValue":"Foo"}`).
 */
import { ConveyorError } from '../core/errors.ts';
import { DtlSyntaxError, shift, type Position } from './diagnostics.ts';
import { jsonErrorOffset } from './json-error.ts';
import type { JsonValue } from './values.ts';
import { readXml, type XmlElement } from './xml-reader.ts';

function fail(document: string, pos: Position, message: string): never {
  throw new ConveyorError('ERR_DTL', `${document}:${pos.line}:${pos.column}: ${message}`, {
    details: { diagnostics: [{ document, ...pos, severity: 'error', message }] },
  });
}

function jsonAt(text: string, start: Position, document: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const offset = jsonErrorOffset(text);
    const pos = offset < 0 ? start : shift(start, text, offset);
    return fail(document, pos, `the test message is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function child(el: XmlElement, name: string): XmlElement | undefined {
  return el.children.find((c) => c.name.toLowerCase() === name.toLowerCase());
}

/** Parses a test envelope (or a bare JSON text) into the source document of a test run. */
export function parseTestEnvelope(payload: string, document = 'test message'): JsonValue {
  const trimmed = payload.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return jsonAt(trimmed, { line: 1, column: payload.indexOf(trimmed[0]!) + 1 }, document);
  let root: XmlElement;
  try {
    root = readXml(payload);
  } catch (error) {
    if (error instanceof DtlSyntaxError) fail(document, error.position, error.message);
    throw error;
  }
  if (root.name !== 'test') fail(document, root.pos, `expected a <test> envelope, found <${root.name}>`);
  const message = child(root, 'Message');
  if (!message) return fail(document, root.pos, '<test> needs a <Message> element');
  const json = child(message, 'json');
  if (json) {
    if (json.text.trim() === '') fail(document, json.pos, '<json> is empty: put the JSON document in a CDATA section');
    const lead = json.text.length - json.text.trimStart().length;
    return jsonAt(json.text.trim(), shift(json.textPos ?? json.pos, json.text, lead), document);
  }
  const properties: Record<string, JsonValue> = {};
  for (const property of message.children) properties[property.name] = property.text;
  return properties;
}

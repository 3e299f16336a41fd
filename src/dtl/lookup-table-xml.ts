/**
 * Lookup tables in the IRIS export format (`Ens.Util.LookupTable` export / import):
 * `<lookupTable><entry table="Gender" key="M">Male</entry>…</lookupTable>`. One file may hold
 * entries of several tables.
 */
import { ConveyorError } from '../core/errors.ts';
import { DtlSyntaxError, type Position } from './diagnostics.ts';
import { lookupNameProblem } from './lookup-table-name.ts';
import { readXml, type XmlElement } from './xml-reader.ts';

export type LookupTables = Record<string, Record<string, string>>;

function fail(document: string, pos: Position, message: string): never {
  throw new ConveyorError('ERR_INVALID_INPUT', `${document}:${pos.line}:${pos.column}: ${message}`, {
    details: { diagnostics: [{ document, ...pos, severity: 'error', message }] },
  });
}

/** Parses a lookup-table export into `{ table: { key: value } }`. */
export function parseLookupTableXml(xml: string, document = 'lookup table'): LookupTables {
  let root: XmlElement;
  try {
    root = readXml(xml.replace(/^\uFEFF/, ''));
  } catch (error) {
    if (error instanceof DtlSyntaxError) fail(document, error.position, error.message);
    throw error;
  }
  if (root.name !== 'lookupTable') fail(document, root.pos, `expected a <lookupTable> root element, found <${root.name}>`);
  const tables: LookupTables = {};
  for (const entry of root.children) {
    if (entry.name !== 'entry') fail(document, entry.pos, `expected <entry table="…" key="…">value</entry>, found <${entry.name}>`);
    const table = entry.attributes.get('table')?.value;
    const key = entry.attributes.get('key')?.value;
    if (!table) fail(document, entry.pos, '<entry> needs a non-empty "table" attribute');
    const problem = lookupNameProblem(table);
    if (problem) fail(document, entry.attributes.get('table')?.pos ?? entry.pos, problem);
    if (key === undefined || key === '') fail(document, entry.pos, '<entry> needs a non-empty "key" attribute');
    (tables[table] ??= {})[key] = entry.text;
  }
  return tables;
}

function escape(text: string, attribute: boolean): string {
  const out = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? out.replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;') : out.replace(/\r/g, '&#13;');
}

/** Writes tables in the export format, tables and keys in sorted order. */
export function serializeLookupTableXml(tables: LookupTables): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<lookupTable>'];
  for (const table of Object.keys(tables).sort()) {
    const entries = tables[table]!;
    for (const key of Object.keys(entries).sort()) {
      lines.push(`<entry table="${escape(table, true)}" key="${escape(key, true)}">${escape(entries[key]!, false)}</entry>`);
    }
  }
  lines.push('</lookupTable>', '');
  return lines.join('\n');
}

/** Reading a lookup table from an imported file, and putting it together with the table being edited. */
import { parseCsv } from './csv.ts';

export type Entry = { key: string; value: string };

/**
 * A JSON object of key → value, or CSV (RFC 4180, csv.ts) with two fields a record, `key,value`; a
 * first record `key,value` is a header and skipped. A value holding a comma, a quote or a line break
 * is quoted in the file (`"Acme, Ltd"`, `"say ""hi"""`). Errors name the line.
 */
export function parseLookupFile(text: string): Entry[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    return Object.entries(parsed).map(([key, value]) => ({ key, value: String(value) }));
  }
  const records = parseCsv(text);
  const first = records[0];
  const body =
    first && first.fields.length === 2 && first.fields[0]?.toLowerCase() === 'key' && first.fields[1]?.toLowerCase() === 'value' ? records.slice(1) : records;
  const seen = new Map<string, number>();
  return body.map(({ line, fields }) => {
    if (fields.length !== 2) {
      throw new Error(
        fields.length < 2
          ? `line ${line} has no comma: write key,value`
          : `line ${line} has ${fields.length} values: write key,value, and quote a value that holds a comma ("Acme, Ltd")`,
      );
    }
    const [key = '', value = ''] = fields;
    if (key === '') throw new Error(`line ${line} has an empty key`);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new Error(`the key ${JSON.stringify(key)} appears on line ${earlier} and line ${line}; keys must be unique`);
    seen.set(key, line);
    return { key, value };
  });
}

/** The table after an import: `replace` keeps only the imported entries; `merge` adds them, an imported key's value winning. */
export function combineEntries(current: Entry[], imported: Entry[], mode: 'replace' | 'merge'): Entry[] {
  if (mode === 'replace') return imported;
  const importedValue = new Map(imported.map((entry) => [entry.key, entry.value]));
  const kept = current.filter((entry) => entry.key !== '').map((entry) => ({ key: entry.key, value: importedValue.get(entry.key) ?? entry.value }));
  const keptKeys = new Set(kept.map((entry) => entry.key));
  return [...kept, ...imported.filter((entry) => !keptKeys.has(entry.key))];
}

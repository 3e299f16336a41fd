/** Reading a lookup table from an imported file. */

export type Entry = { key: string; value: string };

/** A JSON object of key → value, or CSV lines `key,value` (the first comma splits). */
export function parseLookupFile(text: string): Entry[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    return Object.entries(parsed).map(([key, value]) => ({ key, value: String(value) }));
  }
  return trimmed
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const comma = line.indexOf(',');
      if (comma < 0) throw new Error(`line ${index + 1} has no comma: write key,value`);
      return { key: line.slice(0, comma).trim(), value: line.slice(comma + 1).trim() };
    });
}

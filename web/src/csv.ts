/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF (a lone LF or CR is taken
 * too); a field in double quotes may hold commas, line breaks and doubled quotes (`""` is one `"`),
 * and its quotes are not part of its value. Spaces around an unquoted field are dropped (spreadsheets
 * pad), a quoted field is kept exactly. Errors name the line where the record starts.
 */

export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  fields: string[];
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let line = 1;
  let at = 0;
  let fields: string[] = [];
  let recordLine = 1;
  let field = '';
  let quoted = false;
  /** Whether the current record has any content yet (a blank line is no record). */
  let started = false;

  const endField = () => {
    fields.push(quoted ? field : field.trim());
    field = '';
    quoted = false;
  };
  const endRecord = () => {
    endField();
    if (started) records.push({ line: recordLine, fields });
    fields = [];
    started = false;
  };

  while (at < source.length) {
    const char = source[at] as string;
    if (char === '"' && field.trim() === '' && !quoted) {
      // An opening quote: read to the closing one.
      quoted = true;
      started = true;
      field = '';
      at++;
      for (;;) {
        if (at >= source.length) throw new Error(`line ${recordLine}: a quoted value is not closed (a " is missing)`);
        const inner = source[at] as string;
        if (inner === '"') {
          if (source[at + 1] === '"') {
            field += '"';
            at += 2;
            continue;
          }
          at++;
          break;
        }
        if (inner === '\n' || (inner === '\r' && source[at + 1] !== '\n')) line++;
        field += inner;
        at++;
      }
      // After the closing quote: spaces, then a comma or the end of the record.
      while (source[at] === ' ' || source[at] === '\t') at++;
      const next = source[at];
      if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') {
        throw new Error(
          `line ${line}: after a closing quote comes a comma or the end of the line, not ${JSON.stringify(next)} (write "" for a quote inside a quoted value)`,
        );
      }
      continue;
    }
    if (char === ',') {
      started = true;
      endField();
      at++;
      continue;
    }
    if (char === '\r' || char === '\n') {
      endRecord();
      at += char === '\r' && source[at + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    if (char === '"') throw new Error(`line ${line}: a quote inside an unquoted value; quote the whole value and double the quote ("")`);
    if (char.trim() !== '') started = true;
    field += char;
    at++;
  }
  endRecord();
  return records;
}

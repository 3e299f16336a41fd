/** The portal's CSV reader (web/src/csv.ts) and the lookup import built on it (web/src/lookup-file.ts). */
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../web/src/csv.ts';
import { combineEntries, parseLookupFile } from '../../web/src/lookup-file.ts';

const fields = (text: string) => parseCsv(text).map((record) => record.fields);

describe('parseCsv (RFC 4180)', () => {
  it('drops the quotes around a quoted value', () => {
    expect(fields('"ACME","Acme Corp"\r\n"X","y"\r\n')).toEqual([
      ['ACME', 'Acme Corp'],
      ['X', 'y'],
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quotes', () => {
    expect(fields('a,"Acme, Ltd"\nb,"say ""hi"""\nc,"two\r\nlines"\nd,""\n')).toEqual([
      ['a', 'Acme, Ltd'],
      ['b', 'say "hi"'],
      ['c', 'two\r\nlines'],
      ['d', ''],
    ]);
  });

  it('reads CRLF, LF and CR line ends, skips blank lines and a byte order mark, and numbers records by their first line', () => {
    expect(parseCsv('\uFEFFa,1\r\n\r\nb,"x\ny"\rc,3')).toEqual([
      { line: 1, fields: ['a', '1'] },
      { line: 3, fields: ['b', 'x\ny'] },
      { line: 5, fields: ['c', '3'] },
    ]);
  });

  it('trims spaces around an unquoted value, keeps them inside quotes, and keeps empty fields', () => {
    expect(fields(' a , b \n"  padded  " ,x\n,\n')).toEqual([
      ['a', 'b'],
      ['  padded  ', 'x'],
      ['', ''],
    ]);
  });

  it('says where a quoted value is not closed, text follows a closing quote, or a quote sits in an unquoted value', () => {
    expect(() => parseCsv('a,1\nb,"open\nc,3\n')).toThrow('line 2: a quoted value is not closed (a " is missing)');
    expect(() => parseCsv('a,"x"y\n')).toThrow(
      'line 1: after a closing quote comes a comma or the end of the line, not "y" (write "" for a quote inside a quoted value)',
    );
    expect(() => parseCsv('a,x"y\n')).toThrow('line 1: a quote inside an unquoted value; quote the whole value and double the quote ("")');
  });
});

describe('lookup files', () => {
  it('reads key,value CSV with quotes, a header row and CRLF', () => {
    expect(parseLookupFile('key,value\r\n"ACME","Acme, Ltd"\r\n"Q","He said ""no"""\r\n')).toEqual([
      { key: 'ACME', value: 'Acme, Ltd' },
      { key: 'Q', value: 'He said "no"' },
    ]);
  });

  it('refuses three values, one value, an empty key and a repeated key, naming the lines', () => {
    expect(() => parseLookupFile('a,1\nACME, Acme Corp, Ltd\n')).toThrow(
      'line 2 has 3 values: write key,value, and quote a value that holds a comma ("Acme, Ltd")',
    );
    expect(() => parseLookupFile('a,1\nbroken\n')).toThrow('line 2 has no comma: write key,value');
    expect(() => parseLookupFile(',1\n')).toThrow('line 1 has an empty key');
    expect(() => parseLookupFile('a,1\nb,2\na,3\n')).toThrow('the key "a" appears on line 1 and line 3; keys must be unique');
  });

  it('merges an import into a table (imported values win, other entries kept) or replaces it', () => {
    const current = [
      { key: 'a', value: 'old' },
      { key: 'b', value: 'kept' },
    ];
    const imported = [
      { key: 'a', value: 'new' },
      { key: 'c', value: 'added' },
    ];
    expect(combineEntries(current, imported, 'merge')).toEqual([
      { key: 'a', value: 'new' },
      { key: 'b', value: 'kept' },
      { key: 'c', value: 'added' },
    ]);
    expect(combineEntries(current, imported, 'replace')).toEqual(imported);
  });
});

/**
 * Reading an IRIS class text (`.cls`) that carries an XML document in an XData block: the DTL
 * transform classes (`XData DTL`) and the routing rule classes (`XData RuleDefinition`). The XML is
 * handed on with everything outside it blanked to spaces (newlines kept), so the positions the XML
 * reader reports are positions in the class text.
 */
import { DtlSyntaxError, type Position } from './diagnostics.ts';

/** Line and column (1-based) of `index` in `text`. */
export function positionAt(text: string, index: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: index - lineStart + 1 };
}

/** Keeps only the newlines of `text`, so a padded body keeps its line numbers. */
export function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/** The names of a class list: `(A, B)` or `A`. */
export function splitNames(list: string): string[] {
  return list
    .replace(/^\(|\)$/g, '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The `{ … }` body of `XData <block>` up to its `<root>` element's end, blanked outside so positions are unchanged. */
export function xdataBody(text: string, block: string, root: string): string {
  const header = new RegExp(`^[ \\t]*XData\\s+${block}\\b`, 'm').exec(text);
  if (!header) throw new DtlSyntaxError(`the class has no "XData ${block}" block`, { line: 1, column: 1 });
  const open = text.indexOf('{', header.index + header[0].length);
  if (open < 0) throw new DtlSyntaxError(`the XData ${block} block has no opening "{"`, positionAt(text, header.index));
  const endTag = text.indexOf(`</${root}>`, open);
  let end: number;
  if (endTag >= 0) end = endTag + `</${root}>`.length;
  else {
    const selfClosing = new RegExp(`<${root}\\b[^>]*/>`).exec(text.slice(open));
    if (!selfClosing) throw new DtlSyntaxError(`the XData ${block} block holds no <${root}> element`, positionAt(text, open));
    end = open + selfClosing.index + selfClosing[0].length;
  }
  const body = text.slice(open + 1, end).replace(/<\?xml[^?]*\?>/, (decl) => blank(decl));
  return blank(text.slice(0, open + 1)) + body;
}

/**
 * The `Class <name> Extends <supers><rest of the line>` header, refused unless `baseClass` is among
 * the supers (`expected` says what the text should have begun with).
 */
export function classHeader(text: string, baseClass: string, expected: string): { name: string; rest: string } {
  const header = /^[ \t]*Class\s+([%\w.]+)\s+Extends\s+(\([^)]*\)|[%\w.]+)([^\n{]*)/m.exec(text);
  if (!header) throw new DtlSyntaxError(expected, { line: 1, column: 1 });
  const supers = splitNames(header[2]!);
  if (!supers.includes(baseClass)) {
    throw new DtlSyntaxError(`class ${header[1]} must extend ${baseClass} (it extends ${supers.join(', ')})`, positionAt(text, header.index));
  }
  return { name: header[1]!, rest: header[3] ?? '' };
}

/**
 * Class methods written in the transform's own class (`ClassMethod Name(a, b = 1) As %String
 * { … }`): IRIS lets the DTL call them as `..Name(args)`. This reads their signatures and bodies
 * out of a class text; `transform.ts` compiles them with the `<code>` statement subset.
 */
import type { ClassMethodNode } from './ast.ts';
import { positionAt } from './class-text.ts';
import { DtlSyntaxError, type Position } from './diagnostics.ts';

/** Index of the bracket closing the one at `open`, skipping strings and `//` / `;` comments. */
function matching(text: string, open: number, openChar: string, closeChar: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) return -1;
      i = end;
    } else if ((c === '/' && text[i + 1] === '/') || (c === ';' && openChar === '{')) {
      const end = text.indexOf('\n', i);
      if (end < 0) return -1;
      i = end;
    } else if (c === openChar) depth++;
    else if (c === closeChar && --depth === 0) return i;
  }
  return -1;
}

/** Splits on commas outside parentheses and strings. */
function splitTop(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '"') inString = !inString;
    else if (!inString && c === '(') depth++;
    else if (!inString && c === ')') depth--;
    else if (!inString && depth === 0 && c === ',') {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  if (list.trim() !== '') out.push(list.slice(start));
  return out;
}

function parseParameters(list: string, pos: Position): ClassMethodNode['params'] {
  return splitTop(list).map((raw) => {
    const m = /^\s*(?:(?:ByRef|Output)\s+)?([%A-Za-z][A-Za-z0-9]*)(?:\s+As\s+[%\w.]+(?:\([^)]*\))?)?\s*(?:=\s*([\s\S]+?))?\s*$/.exec(raw);
    if (!m) throw new DtlSyntaxError(`cannot read the class method parameter "${raw.trim()}"`, pos);
    return { name: m[1]!, defaultValue: m[2] === undefined ? null : m[2].trim() };
  });
}

/** Every `ClassMethod` of a class text, in order. */
export function readClassMethods(text: string): ClassMethodNode[] {
  const methods: ClassMethodNode[] = [];
  const header = /^[ \t]*ClassMethod\s+([%A-Za-z][%A-Za-z0-9]*)\s*\(/gm;
  for (let m = header.exec(text); m; m = header.exec(text)) {
    const pos = positionAt(text, m.index);
    const open = m.index + m[0].length - 1;
    const close = matching(text, open, '(', ')');
    if (close < 0) throw new DtlSyntaxError(`class method ${m[1]} has an unclosed parameter list`, pos);
    const rest = /^\s*(?:As\s+[%\w.]+(?:\([^)]*\))?)?\s*(?:\[([^\]]*)\])?\s*\{/.exec(text.slice(close + 1));
    if (!rest) throw new DtlSyntaxError(`class method ${m[1]}: expected "{" after the signature`, pos);
    const keywords = rest[1] ?? '';
    const bodyOpen = close + rest[0].length;
    const bodyClose = matching(text, bodyOpen, '{', '}');
    if (bodyClose < 0) throw new DtlSyntaxError(`class method ${m[1]} has no closing "}"`, pos);
    methods.push({
      name: m[1]!,
      params: parseParameters(text.slice(open + 1, close), pos),
      codeMode: /CodeMode\s*=\s*expression/i.test(keywords) ? 'expression' : 'code',
      language: /Language\s*=\s*python/i.test(keywords) ? 'python' : 'objectscript',
      body: text.slice(bodyOpen + 1, bodyClose),
      pos,
      textPos: positionAt(text, bodyOpen + 1),
    });
    header.lastIndex = bodyClose;
  }
  return methods;
}

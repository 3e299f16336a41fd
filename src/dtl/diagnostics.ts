/**
 * Positioned problems found while reading, validating or running a transform. Every diagnostic
 * names the document, the line and column (both 1-based) and what is wrong.
 */
import { ConveyorError } from '../core/errors.ts';

export interface Position {
  line: number;
  column: number;
}

/**
 * Where an attribute value starts. When XML decoding changed its length (`&gt;`, `&amp;&amp;`,
 * character references), `map[i]` is the document position of decoded character i, so errors
 * inside expressions point at the right column of the source text.
 */
export interface TextPosition extends Position {
  map?: Position[];
}

export interface DtlDiagnostic extends Position {
  document: string;
  severity: 'error' | 'warning';
  message: string;
  /** The action it is about, as its editor path (`2.actions.0`, src/dtl/action-position.ts); absent for the transform itself. */
  position?: string;
}

export function formatDiagnostic(d: DtlDiagnostic): string {
  return `${d.document}:${d.line}:${d.column}: ${d.message}`;
}

/** A problem in one piece of text, before we know the document it belongs to. */
export class DtlSyntaxError extends Error {
  readonly position: Position;
  constructor(message: string, position: Position) {
    super(message);
    this.name = 'DtlSyntaxError';
    this.position = position;
  }
}

/** Throws the ConveyorError (code ERR_DTL) that carries every error diagnostic. */
export function failWithDiagnostics(document: string, diagnostics: DtlDiagnostic[]): never {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const shown = errors.slice(0, 5).map(formatDiagnostic).join('\n');
  const more = errors.length > 5 ? `\n… and ${errors.length - 5} more` : '';
  throw new ConveyorError('ERR_DTL', `${document}: ${errors.length} error(s) in the transform\n${shown}${more}`, {
    details: { diagnostics },
  });
}

/** Offsets a position inside an attribute or body text to a position in the document. */
export function shift(base: Position, offsetText: string, offset: number): Position {
  let line = base.line;
  let column = base.column;
  for (let i = 0; i < offset && i < offsetText.length; i++) {
    if (offsetText.charCodeAt(i) === 10) {
      line += 1;
      column = 1;
    } else column += 1;
  }
  return { line, column };
}

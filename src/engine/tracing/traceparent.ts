/**
 * The W3C Trace Context `traceparent` value (version 00): how a message carries the span that sent
 * it, in its stored header, from one hop to the next and from one node to another.
 * `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`.
 */

export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
}

const pattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * Reads a traceparent; null when absent or invalid (a trace that cannot be continued starts anew
 * rather than failing the message). All-zero ids and version ff are invalid per the specification;
 * a later version is read by its first four fields, as the specification asks.
 */
export function parseTraceParent(value: string | null | undefined): TraceParent | null {
  if (!value) return null;
  const match = pattern.exec(value.trim().toLowerCase());
  if (!match) return null;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || (version === '00' && value.trim().length !== 55)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

export function formatTraceParent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${(parent.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

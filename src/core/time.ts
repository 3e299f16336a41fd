/** Time formats of the spec: `YYYY-MM-DD HH:MM:SS` (HTTP) and the same with milliseconds (CLI list). UTC. */

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

export function formatTimestamp(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export function formatTimestampMs(epochMs: number): string {
  return `${formatTimestamp(epochMs)}.${pad(new Date(epochMs).getUTCMilliseconds(), 3)}`;
}

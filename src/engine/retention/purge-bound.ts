/**
 * The bound of a purge, as an operator gives it: an instant (`olderThan`, ISO 8601) or an age
 * (`keepDays`: keep this many days, purge what is older). Exactly one of the two.
 */
import { ConveyorError } from '../../core/errors.ts';

export interface PurgeBoundInput {
  olderThan?: string | undefined;
  keepDays?: number | undefined;
}

const dayMs = 86_400_000;

/** An ISO 8601 instant with a date and a time; a bare date reads as its midnight UTC. */
const isoInstant = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch ms: everything created before it may go. ERR_INVALID_INPUT names what is wrong. */
export function purgeBound(input: PurgeBoundInput, now: number): number {
  const { olderThan, keepDays } = input;
  if (olderThan !== undefined && keepDays !== undefined) {
    throw new ConveyorError('ERR_INVALID_INPUT', 'Give either olderThan or keepDays, not both', {
      hint: 'olderThan: an ISO 8601 instant such as "2026-01-31T00:00:00Z"; keepDays: how many days to keep.',
    });
  }
  if (olderThan !== undefined) return instant(olderThan);
  if (keepDays !== undefined) return now - days('keepDays', keepDays) * dayMs;
  throw new ConveyorError('ERR_INVALID_INPUT', 'Say what to purge: olderThan (an ISO 8601 instant) or keepDays (a number of days to keep)', {
    hint: 'For example {"keepDays": 30} or {"olderThan": "2026-01-31T00:00:00Z"}; add "dryRun": true to see the counts first.',
  });
}

/** Without a zone, a time reads as UTC (as the portal's time filters do), never as the server's local time. */
function instant(text: string): number {
  const trimmed = text.trim();
  const match = isoInstant.exec(trimmed);
  const zoned = match === null || match[1] === undefined || match[4] !== undefined ? trimmed : `${trimmed}Z`;
  const value = match === null ? Number.NaN : Date.parse(zoned.replace(' ', 'T'));
  if (Number.isNaN(value)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `olderThan must be an ISO 8601 instant such as "2026-01-31T00:00:00Z", not ${JSON.stringify(text)}`);
  }
  return value;
}

/** A number of days: finite, not negative (0 purges everything finished up to now). Fractions are allowed (0.5 = 12 hours). */
export function days(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new ConveyorError('ERR_INVALID_INPUT', `${name} must be a number of days, 0 or more, not ${String(value)}`);
  }
  return value;
}

/**
 * Login throttling: failed password checks are counted per user name and per client address. Past
 * the allowed failures the name (or the address) must wait before its next check: the first wait is
 * `lockoutMs`, doubled by each further failure, capped at `lockoutMaxMs`. A successful login clears
 * the counts of its name and address. Unknown names are counted exactly like known ones, so the
 * answers never tell whether a name exists. Counts are forgotten after a quiet period, and the table
 * is bounded, so a flood of made-up names cannot grow it without end.
 */

export interface LoginThrottleLimits {
  /** Failures a user name may have before it must wait. Default 5. */
  failuresPerUser: number;
  /** Failures a client address may have (over all names) before it must wait. Default 20. */
  failuresPerAddress: number;
  /** The first wait, doubled by each further failure. Default 30 s. */
  lockoutMs: number;
  /** The longest wait. Default 15 min. */
  lockoutMaxMs: number;
}

export const defaultLoginThrottleLimits: LoginThrottleLimits = { failuresPerUser: 5, failuresPerAddress: 20, lockoutMs: 30_000, lockoutMaxMs: 900_000 };

interface Failures {
  count: number;
  lastFailure: number;
  blockedUntil: number;
}

export interface Refusal {
  /** Whole seconds to wait (the Retry-After header). */
  retryAfterSeconds: number;
  /** What is throttled, for the error text. */
  subject: string;
}

const maxEntries = 10_000;

export class LoginThrottle {
  readonly limits: LoginThrottleLimits;
  readonly #now: () => number;
  readonly #entries = new Map<string, Failures>();

  constructor(limits: Partial<LoginThrottleLimits> = {}, now: () => number = Date.now) {
    this.limits = { ...defaultLoginThrottleLimits, ...limits };
    this.#now = now;
  }

  /** Null when a password check may run for this name from this address, else how long to wait. */
  refusal(user: string, address: string): Refusal | null {
    const now = this.#now();
    let longest: Refusal | null = null;
    for (const [key, subject] of [
      [userKey(user), `user '${user}'`],
      [addressKey(address), `address ${address}`],
    ] as const) {
      const entry = this.#entries.get(key);
      if (!entry || entry.blockedUntil <= now) continue;
      const retryAfterSeconds = Math.ceil((entry.blockedUntil - now) / 1000);
      if (!longest || retryAfterSeconds > longest.retryAfterSeconds) longest = { retryAfterSeconds, subject };
    }
    return longest;
  }

  failed(user: string, address: string): void {
    this.#count(userKey(user), this.limits.failuresPerUser);
    this.#count(addressKey(address), this.limits.failuresPerAddress);
  }

  succeeded(user: string, address: string): void {
    this.#entries.delete(userKey(user));
    this.#entries.delete(addressKey(address));
  }

  /** Entries held (for tests of the bound). */
  get size(): number {
    return this.#entries.size;
  }

  #count(key: string, allowed: number): void {
    const now = this.#now();
    const previous = this.#entries.get(key);
    const entry = previous && !this.#forgotten(previous, now) ? previous : { count: 0, lastFailure: now, blockedUntil: 0 };
    entry.count++;
    entry.lastFailure = now;
    if (entry.count >= allowed) {
      const doublings = Math.min(entry.count - allowed, 30);
      entry.blockedUntil = now + Math.min(this.limits.lockoutMs * 2 ** doublings, this.limits.lockoutMaxMs);
    }
    // Re-inserted so the map's order is least recently failed first.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > maxEntries) this.#prune(now);
  }

  /** A name or address quiet for twice the longest wait starts again from zero. */
  #forgotten(entry: Failures, now: number): boolean {
    return entry.blockedUntil <= now && now - entry.lastFailure > 2 * this.limits.lockoutMaxMs;
  }

  /** Drops forgotten entries, then the least recently failed, down to 90 % of the bound (so pruning stays rare). */
  #prune(now: number): void {
    for (const [key, entry] of this.#entries) if (this.#forgotten(entry, now)) this.#entries.delete(key);
    const target = Math.floor(maxEntries * 0.9);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= target) break;
      this.#entries.delete(key);
    }
  }
}

function userKey(user: string): string {
  return `user\u0000${user}`;
}

function addressKey(address: string): string {
  return `address\u0000${address}`;
}

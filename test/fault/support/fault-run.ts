/**
 * What every kill -9 suite shares: a seeded random source (the seed is printed, and FAULT_SEED
 * replays a run), and the figures line each suite prints for docs/reliability.md.
 */
import { randomInt } from 'node:crypto';

export interface FaultFigures {
  /** kill -9 delivered to a server process. */
  faults: number;
  /** Messages, or changes, whose outcome was checked afterwards. */
  checked: number;
  lost: number;
  duplicated: number;
  /** Anything else worth quoting (e.g. how many kills landed before or after a commit). */
  notes?: string;
}

/** A small deterministic generator (mulberry32): the same seed gives the same kill instants. */
export class SeededRandom {
  readonly seed: number;
  #state: number;

  constructor(seed: number = seedFromEnvironment()) {
    this.seed = seed >>> 0;
    this.#state = this.seed;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

function seedFromEnvironment(): number {
  const given = process.env['FAULT_SEED'];
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`FAULT_SEED must be a whole number, got ${given}`);
    return seed;
  }
  return randomInt(0, 2 ** 31);
}

/** Prints the suite's figures on one greppable line. */
export function reportFigures(suite: string, random: SeededRandom, figures: FaultFigures): void {
  const notes = figures.notes ? `; ${figures.notes}` : '';
  console.log(
    `FAULT ${suite}: seed ${random.seed} (replay with FAULT_SEED=${random.seed}); faults injected ${figures.faults}, checked ${figures.checked}, lost ${figures.lost}, duplicated ${figures.duplicated}${notes}`,
  );
}

/** Of `total` messages numbered `message 0…`, how many of the recorded lines miss one, and how many repeat one. */
export function deliveryCounts(lines: string[], total: number): { lost: number; duplicated: number } {
  const unique = new Set(lines);
  let lost = 0;
  for (let i = 0; i < total; i++) if (!unique.has(`message ${i}`)) lost++;
  return { lost, duplicated: lines.length - unique.size };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

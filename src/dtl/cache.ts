/**
 * Compiled transforms keyed by namespace, name and version: a stored transform is parsed and
 * compiled once per version, then every message reuses the closures. Least recently used entries
 * leave first when the cache is full.
 */
import { parseTransform, type ParseOptions } from './parse-transform.ts';
import { compileTransform } from './transform.ts';
import type { CompiledTransform } from './types.ts';

export interface CacheKey {
  namespace?: string;
  name: string;
  version: number;
}

function keyOf(key: CacheKey): string {
  return `${key.namespace ?? ''}\u0000${key.name}\u0000${key.version}`;
}

export class TransformCache {
  readonly #entries = new Map<string, CompiledTransform>();
  readonly #capacity: number;

  constructor(capacity = 500) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: CacheKey): CompiledTransform | undefined {
    const id = keyOf(key);
    const hit = this.#entries.get(id);
    if (hit) {
      this.#entries.delete(id);
      this.#entries.set(id, hit);
    }
    return hit;
  }

  set(key: CacheKey, compiled: CompiledTransform): void {
    const id = keyOf(key);
    this.#entries.delete(id);
    this.#entries.set(id, compiled);
    while (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** The compiled transform of this version, parsing and compiling `source` on a miss. */
  getOrCompile(key: CacheKey, source: string, options: ParseOptions = {}): CompiledTransform {
    const hit = this.get(key);
    if (hit) return hit;
    const compiled = compileTransform(parseTransform(source, key.name, options));
    this.set(key, compiled);
    return compiled;
  }

  /** Drops every version of a transform (after a delete). */
  invalidate(name: string, namespace?: string): void {
    const prefix = `${namespace ?? ''}\u0000${name}\u0000`;
    for (const id of [...this.#entries.keys()]) if (id.startsWith(prefix)) this.#entries.delete(id);
  }
}

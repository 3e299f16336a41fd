import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { isConveyorError, type ErrorCode } from '../../src/core/errors.ts';
import { Engine, type EngineOptions } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { tempDir } from './temp-dir.ts';

/** A real engine on its own SQLite store in a temporary folder, and the handle of its USER namespace. */
export interface FreshEngine {
  dir: ReturnType<typeof tempDir>;
  store: Store;
  engine: Engine;
  user: NamespaceOperations;
}

/**
 * Gives every test of the enclosing `describe` a fresh engine (handed to `use` before the test) and
 * closes it after the test, so the engine's unit tests share one set-up instead of copies of it.
 */
export function freshEngineForEachTest(options: EngineOptions, use: (fresh: FreshEngine) => void): void {
  let fresh: FreshEngine | null = null;
  beforeEach(async () => {
    const dir = tempDir();
    const store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    const engine = await Engine.open(store, options);
    fresh = { dir, store, engine, user: await engine.namespace('USER') };
    use(fresh);
  });
  afterEach(async () => {
    if (!fresh) return;
    await fresh.engine.close();
    await fresh.store.close();
    fresh.dir.remove();
    fresh = null;
  });
}

/** Expects the promise to reject with a ConveyorError of that code (and text, when given). */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode, text?: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isConveyorError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
  if (text) expect((error as Error).message).toMatch(text);
}

/** Convenience entry points over `CompiledTransform`. */
import type { CompiledTransform, DtlResult, RunOptions } from './types.ts';
import type { JsonValue } from './values.ts';

/** Runs a compiled transform on a JSON source. Resolves to `{status, errors, target, trace}`. */
export function runTransform(compiled: CompiledTransform, source: JsonValue, options: RunOptions = {}): Promise<DtlResult> {
  return compiled.run(source, options);
}

/** The same without a promise; refused for transforms that use Python, SQL or subtransforms. */
export function runTransformSync(compiled: CompiledTransform, source: JsonValue, options: RunOptions = {}): DtlResult {
  return compiled.runSync(source, options);
}

/**
 * What only the namespace knows: whether the classes a transform names exist. `<subtransform
 * class=…>` must name a stored transform, and `##class(Name).Method()` a class the host answers (the
 * built-in ones: Ens.Util.FunctionSet, Ens.Rule.FunctionSet, Ens.Util.Time, %SYSTEM.Encryption).
 * Each finding is positioned at the class name in the XML and names the action.
 */
import type { TransformNode } from './ast.ts';
import { isBuiltinClass } from './builtin-classes.ts';
import type { DtlDiagnostic } from './diagnostics.ts';
import { checkTransform } from './transform.ts';

export interface KnownClasses {
  /** The namespace's name, for the messages. */
  namespace: string;
  /** True when a transform of that class name is stored (a subtransform can be called). */
  hasTransform(className: string): boolean;
  /** True when the host answers class methods of that class; absent = only the built-in classes. */
  hasClass?(className: string): boolean;
}

/**
 * A missing subtransform is a warning (it may be saved next: the order of saving is free; the run
 * fails with <CLASS DOES NOT EXIST> until it exists). A class nobody answers is an error: no run can
 * ever call it.
 */
export function checkReferences(ast: TransformNode, known: KnownClasses): DtlDiagnostic[] {
  const { state } = checkTransform(ast);
  const out: DtlDiagnostic[] = [];
  const document = ast.document;
  for (const call of state.subtransforms) {
    if (call.className.trim() === '' || known.hasTransform(call.className)) continue;
    out.push({
      document,
      ...call.pos,
      severity: 'warning',
      message: `subtransform ${call.className} does not exist in namespace ${known.namespace}: runs fail with <CLASS DOES NOT EXIST> until it is saved`,
      position: call.where.position,
    });
  }
  for (const reference of state.scope.classReferences ?? []) {
    if (known.hasClass?.(reference.className)) continue;
    const message = isBuiltinClass(reference.className)
      ? `unknown class method ##class(${reference.className}).${reference.method}`
      : `unknown class ${reference.className}: not a built-in class (Ens.Util.FunctionSet, Ens.Rule.FunctionSet, Ens.Util.Time, %SYSTEM.Encryption) and this server offers no other`;
    out.push({ document, ...reference.pos, severity: 'error', message, ...(reference.position === undefined ? {} : { position: reference.position }) });
  }
  return out;
}

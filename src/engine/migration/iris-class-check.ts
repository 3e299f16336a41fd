/**
 * IRIS's own classes in a migration: an item may name an IRIS class (`EnsLib.…`, `Ens.…`) only if
 * Conveyor provides it (the built-in classes), and a component's `get_adapter_type()` may name an
 * IRIS adapter only if Conveyor runs it (docs/enslib.md), or else a Python adapter class registered
 * by this migration or an earlier one. Anything else would start as an item in error, so the
 * migration is refused, naming every such class and where it is used.
 */
import { ConveyorError } from '../../core/errors.ts';
import type { MigrationRegistrations } from '../../store/store.ts';
import { builtinClasses } from '../builtin/index.ts';
import { isIrisClassName, supportedIrisAdapters } from '../iris-adapters.ts';

/** `isRegistered`: whether the namespace already has a class of that name (from an earlier migration). */
export async function checkIrisClasses(registrations: MigrationRegistrations, isRegistered: (name: string) => Promise<boolean>): Promise<void> {
  const declared = new Map(registrations.classes.map((binding) => [binding.name, binding]));
  const problems: string[] = [];
  for (const production of registrations.productions) {
    for (const item of production.items) {
      if (!isIrisClassName(item.classname) || builtinClasses.has(item.classname) || declared.has(item.classname)) continue;
      problems.push(`item ${item.name} of production ${production.name} uses ${item.classname}, an IRIS class Conveyor does not provide`);
    }
  }
  for (const binding of registrations.classes) {
    const adapter = binding.adapterType;
    if (adapter === null || adapter === '' || supportedIrisAdapters.includes(adapter)) continue;
    if (isIrisClassName(adapter)) {
      problems.push(`${binding.name} names the adapter ${adapter}, an IRIS adapter Conveyor does not provide`);
      continue;
    }
    const own = declared.get(adapter);
    if (own) {
      if (own.kind !== 'inbound_adapter' && own.kind !== 'outbound_adapter')
        problems.push(`${binding.name} names the adapter ${adapter}, which is a ${own.kind}, not an adapter`);
      continue;
    }
    if (!(await isRegistered(adapter))) problems.push(`${binding.name} names the adapter ${adapter}, which is neither registered nor in CLASSES`);
  }
  if (problems.length === 0) return;
  // The hint lists what Conveyor does provide; the message says it once, not twice.
  throw new ConveyorError('ERR_MIGRATION', `Unknown classes: ${problems.join('; ')}`, {
    hint: `Conveyor provides ${[...builtinClasses.keys()].filter(isIrisClassName).join(', ')} and the adapters ${supportedIrisAdapters.join(', ')} (docs/enslib.md)`,
  });
}

/** The namespace-name rule every driver applies before creating a namespace. */
import { ConveyorError } from '../core/errors.ts';

/** Letters, digits and `_ - . %`, starting with a letter, digit or `%` (as in `%SYS`): safe in URLs, paths and shells. */
const namespaceName = /^[A-Za-z0-9%][A-Za-z0-9_.%-]{0,63}$/;

export function assertNamespaceName(name: string): void {
  if (!namespaceName.test(name)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `Invalid namespace name "${name}"`, {
      hint: 'Use 1 to 64 letters, digits, "_", "-", "." or "%", starting with a letter, digit or "%".',
    });
  }
}

/** The error both drivers give when a migration names a package switch the journal does not hold. */
import { ConveyorError } from '../core/errors.ts';

export function unknownSwap(id: string): ConveyorError {
  return new ConveyorError('ERR_MIGRATION', `The package switch ${id} is not journaled (was it discarded by a restart?); nothing was registered`);
}

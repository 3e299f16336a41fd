/**
 * Before a test call is sent: can the target's Python build its message? A fresh bridge worker
 * decodes the body exactly as the target's worker would (the SDK's deserialize, with the item's
 * classpaths; src/bridge/message-check.ts), so an unknown class or a body the class refuses is the
 * caller's error, answered at once, and not a failure logged against the target item. Bounded: the
 * check ends its worker past its timeout; what the module prints never reaches the verdict.
 */
import { ConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import { describeFailure, messageDecodeFailure, serializationErrorType } from '../bridge/index.ts';

/** Longest check (the import of the message's module runs user code). */
export const messageCheckTimeoutMs = 30_000;

/** Rejects with ERR_CLASS_NOT_FOUND or ERR_INVALID_INPUT when the body cannot become its message. */
export async function checkMessageClass(body: MessageBody, classpaths: string[], interpreter: string, timeoutMs = messageCheckTimeoutMs): Promise<void> {
  if (body.encoding !== 'json') return;
  const failure = await messageDecodeFailure(body, classpaths, interpreter, timeoutMs);
  if (!failure) return;
  const serialization = failure.type === serializationErrorType;
  if (serialization && failure.message.startsWith('Failed to load class')) {
    throw new ConveyorError('ERR_CLASS_NOT_FOUND', `Unknown message class ${body.classname}: ${failure.message}`, {
      hint: 'Give the message class as module.Class, importable from the classpaths of the target item',
    });
  }
  throw new ConveyorError('ERR_INVALID_INPUT', `The test body cannot be read as a ${body.classname}: ${serialization ? failure.message : describeFailure(failure)}`);
}

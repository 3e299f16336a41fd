/**
 * Before a test call is sent: can the target's Python build its message? A bridge worker decodes
 * the body exactly as the target's worker would (the SDK's deserialize, with the item's classpaths;
 * src/bridge/message-check.ts), so an unknown class or a body the class refuses is the caller's
 * error, answered at once, and not a failure logged against the target item. Bounded: the check
 * ends its worker past its timeout; what the module prints never reaches the verdict.
 *
 * A check is a request to a kept worker per (interpreter, classpaths), not a fresh python3 per
 * call: a stream of test calls must not start one interpreter each. At most `maxConcurrentChecks`
 * run at once (a burst waits its turn instead of starting unbounded python3s). The kept workers
 * hold the modules they imported, so they are ended when the code may have changed
 * (forgetMessageCheckWorkers, at every production start and update) and after a short idle time.
 */
import { ConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import { describeFailure, messageDecodeFailureIn, serializationErrorType } from '../bridge/index.ts';
import { TaskWorkerPool } from '../bridge/task-workers.ts';
import { timerDelay } from './timer-delay.ts';

/** Longest check (the import of the message's module runs user code). */
export const messageCheckTimeoutMs = 30_000;

/** Checks running at once, all namespaces together. */
export const maxConcurrentChecks = 2;

/** A kept check worker is ended after this long without a check. */
const checkWorkerIdleMs = 30_000;

const pools = new Map<string, TaskWorkerPool>();
let running = 0;
const waiting: Array<() => void> = [];

/** Rejects with ERR_CLASS_NOT_FOUND or ERR_INVALID_INPUT when the body cannot become its message. */
export async function checkMessageClass(body: MessageBody, classpaths: string[], interpreter: string, timeoutMs = messageCheckTimeoutMs): Promise<void> {
  if (body.encoding !== 'json') return;
  const deadline = Date.now() + timeoutMs;
  const failure = await inTurn(deadline, body.classname, () =>
    messageDecodeFailureIn(poolFor(interpreter, classpaths), body, classpaths, Math.max(1, deadline - Date.now())),
  );
  if (!failure) return;
  // IoP 4 names a class that cannot be imported with MessageClassImportError (a SerializationError subclass).
  const serialization = failure.type === serializationErrorType || failure.type === 'MessageClassImportError';
  if (serialization && failure.message.startsWith('Failed to load class')) {
    throw new ConveyorError('ERR_CLASS_NOT_FOUND', `Unknown message class ${body.classname}: ${failure.message}`, {
      hint: 'Give the message class as module.Class, importable from the classpaths of the target item',
    });
  }
  throw new ConveyorError(
    'ERR_INVALID_INPUT',
    `The test body cannot be read as a ${body.classname}: ${serialization ? failure.message : describeFailure(failure)}`,
  );
}

/** The code of message classes may have changed (a start, an update after a migration): check with fresh workers. */
export function forgetMessageCheckWorkers(): void {
  for (const pool of pools.values()) pool.close();
  pools.clear();
}

function poolFor(interpreter: string, classpaths: string[]): TaskWorkerPool {
  const key = JSON.stringify([interpreter, classpaths]);
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = new TaskWorkerPool({ interpreter, onOutput: () => undefined, maxIdle: maxConcurrentChecks, idleMs: checkWorkerIdleMs })));
  return pool;
}

/** Runs `check` once fewer than maxConcurrentChecks run; the wait for the turn counts against the check's time. */
async function inTurn<T>(deadline: number, classname: string, check: () => Promise<T>): Promise<T> {
  if (running >= maxConcurrentChecks) await turnBefore(deadline, classname);
  else running++;
  try {
    return await check();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function turnBefore(deadline: number, classname: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        const index = waiting.indexOf(take);
        if (index >= 0) waiting.splice(index, 1);
        reject(new ConveyorError('ERR_TIMEOUT', `The check of the message class ${classname} did not get its turn in time (other checks were running)`));
      },
      timerDelay(deadline - Date.now()),
    );
    const take = () => {
      clearTimeout(timer);
      resolve();
    };
    waiting.push(take);
  });
}

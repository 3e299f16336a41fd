/**
 * Can a component's worker build this message? A fresh worker decodes the body exactly as the
 * target's worker would (the SDK's deserialize, the item's classpaths first), within a budget, so
 * a caller can refuse a body before it is sent. What the message's module prints at import never
 * reaches the answer.
 */
import type { MessageBody } from '../core/message.ts';
import type { PythonFailure } from './failure.ts';
import type { AnswerFrame } from './protocol.ts';
import { runInFreshWorker, type TaskRequest, type TaskWorkerPool } from './task-workers.ts';

/** A failure of this type whose message starts `Failed to load class` means the class is unknown. */
export const serializationErrorType = 'SerializationError';

/**
 * Null when the body decodes; else the Python failure (type, message, traceback, user frame).
 * Rejects with ERR_TIMEOUT past `timeoutMs` (the worker is ended) and ERR_BRIDGE when python3
 * cannot run.
 */
export async function messageDecodeFailure(body: MessageBody, classpaths: string[], interpreter: string, timeoutMs: number): Promise<PythonFailure | null> {
  return decodeFailureOf(
    await runInFreshWorker({ interpreter, onOutput: () => undefined }, checkFrame(body, classpaths), `check the message class ${body.classname}`, timeoutMs),
  );
}

/**
 * The same check in a worker of `pool`, which keeps the modules it imported: for frequent checks
 * with the same classpaths (the pool is to be closed when the code may have changed).
 */
export async function messageDecodeFailureIn(pool: TaskWorkerPool, body: MessageBody, classpaths: string[], timeoutMs: number): Promise<PythonFailure | null> {
  return decodeFailureOf(await pool.run(checkFrame(body, classpaths), `check the message class ${body.classname}`, timeoutMs));
}

function checkFrame(body: MessageBody, classpaths: string[]): TaskRequest {
  return { t: 'check_message', body, classpaths };
}

function decodeFailureOf(answer: AnswerFrame): PythonFailure | null {
  return answer.t === 'failure' ? answer.failure : null;
}

/**
 * The failure converter of the engine's side (its Python twin is python/conveyor_host/failure.py):
 * a Python exception crosses the pipe as a structured `PythonFailure` and is raised here as a
 * `PythonError` that keeps its kind (the exception type), traceback and the user-code frame; an
 * engine error crosses the other way as an `EngineFailure` (its code and text).
 */
import { basename } from 'node:path';
import { ConveyorError, errorText, isConveyorError, type ErrorCode } from '../core/errors.ts';

/** Where user code raised: the innermost frame that is neither SDK/host code nor the standard library. */
export interface UserFrame {
  file: string;
  line: number;
  function: string;
}

export interface PythonFailure {
  /** The exception's class name (`ValueError`, `ModuleNotFoundError`, …). */
  type: string;
  message: string;
  /** Python's formatted traceback, chained causes included. */
  traceback: string;
  /** Null when no frame of user code is on the stack (the SDK itself raised). */
  userFrame: UserFrame | null;
  /** The step that raised: `import`, `on_init`, `on_message`, `serialize`, `dtl`, `migrate`, … */
  step: string;
}

/** An engine error as user code sees it (python: `conveyor_host.channel.EngineError`). */
export interface EngineFailure {
  /** The engine's error code (ERR_TIMEOUT, ERR_ITEM_NOT_FOUND, …), ERR_INTERNAL for anything else. */
  code: string;
  message: string;
}

/** An error raised by Python code: a ConveyorError (same `code` as before) that carries the failure. */
export class PythonError extends ConveyorError {
  readonly failure: PythonFailure;

  constructor(code: ErrorCode, message: string, failure: PythonFailure) {
    super(code, message, { details: failure });
    this.failure = failure;
  }
}

/** ` (at bo.py:12 in on_message)`, or '' when no user frame is known. The file is named without its folder. */
export function userFrameSuffix(failure: PythonFailure): string {
  const frame = failure.userFrame;
  return frame ? ` (at ${basename(frame.file)}:${frame.line} in ${frame.function})` : '';
}

/** `ValueError: bad input (at bo.py:12 in on_message)`: how a failure reads in logs and error texts. */
export function describeFailure(failure: PythonFailure): string {
  return `${failure.type}: ${failure.message}${userFrameSuffix(failure)}`;
}

/** Recognises a PythonError by shape rather than `instanceof` (module copies, realms). */
export function isPythonError(error: unknown): error is PythonError {
  return isConveyorError(error) && typeof (error as { failure?: unknown }).failure === 'object' && (error as { failure?: unknown }).failure !== null;
}

/** What an op's failure tells the worker. */
export function engineFailure(error: unknown): EngineFailure {
  return { code: isConveyorError(error) ? error.code : 'ERR_INTERNAL', message: errorText(error) };
}

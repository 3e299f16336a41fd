/**
 * The DTL engine's Python hook for the server: the Python of a transform (`<code>`, Python
 * expressions) runs as `dtl` requests of the bridge's worker host, on a small pool of workers
 * kept apart from the components' workers. Each request has a time budget; one that overruns it
 * ends its worker. What the code prints goes to the server's console, never into the result.
 */
import { defaultDtlPythonTimeoutMs, defaultInterpreter, describeFailure, PythonError } from '../bridge/index.ts';
import { TaskWorkerPool, type OutputListener } from '../bridge/task-workers.ts';
import { dtlWorkerIdleMs } from '../bridge/timeouts.ts';
import type { PythonRequest, PythonResult } from '../dtl/index.ts';

export interface DtlPythonOptions {
  /** Budget of one Python action (default defaultDtlPythonTimeoutMs). */
  timeoutMs?: number;
  /** Where printed lines go (default: the server's stderr, prefixed `[dtl python]`). */
  onOutput?: OutputListener;
}

export type PythonRunner = (request: PythonRequest) => Promise<PythonResult>;

const toConsole: OutputListener = (stream, line) => {
  if (line !== '') process.stderr.write(`[dtl python ${stream}] ${line}\n`);
};

export function pythonRunner(interpreter = defaultInterpreter(), options: DtlPythonOptions = {}): PythonRunner {
  const pool = new TaskWorkerPool({ interpreter, onOutput: options.onOutput ?? toConsole, maxIdle: 2, idleMs: dtlWorkerIdleMs });
  const timeoutMs = options.timeoutMs ?? defaultDtlPythonTimeoutMs;
  return async (request) => {
    const answer = await pool.run({ t: 'dtl', ...request }, 'run the Python of a DTL action', timeoutMs);
    if (answer.t === 'failure') throw new PythonError('ERR_DTL', describeFailure(answer.failure), answer.failure);
    return answer.value as PythonResult;
  };
}

/**
 * Python that is not a component — the Python of DTL transforms (`dtl` frames), the settings.py
 * migration (`migrate` frames), the check of a test message (`check_message`) — runs as requests of the same worker host as the components, over
 * the same frames, each with a time budget. `TaskWorkerPool` keeps a few idle workers for frequent
 * short requests (DTL: per transform run); `runInFreshWorker` uses a worker once (a migration or a
 * message check imports user modules, which must not linger).
 */
import { ConveyorError } from '../core/errors.ts';
import { Deadline } from './deadline.ts';
import type { AnswerFrame } from './protocol.ts';
import { PythonWorker, type OutgoingRequest } from './python-worker.ts';
import { defaultBridgeTimeouts } from './timeouts.ts';

export type OutputListener = (stream: 'stdout' | 'stderr', line: string) => void;

/** A request of a task worker: anything but the component frames. */
export type TaskRequest = Extract<OutgoingRequest, { t: 'dtl' | 'migrate' | 'check_message' }>;

export interface TaskWorkerOptions {
  interpreter: string;
  /** What user code prints (the lines never reach the answer). */
  onOutput: OutputListener;
}

function startTaskWorker(options: TaskWorkerOptions, keepsProcessAlive: boolean): Promise<PythonWorker> {
  return PythonWorker.start({
    interpreter: options.interpreter,
    startMs: defaultBridgeTimeouts.startMs,
    keepsProcessAlive,
    // Ops are the component API (send, reply, …): a task has no call to make them in.
    onOp: (frame) => Promise.reject(new ConveyorError('ERR_NOT_AVAILABLE', `${frame.op} is only available to components of a production`)),
    onLog: (frame) => options.onOutput('stderr', frame.text),
    onOutput: options.onOutput,
  });
}

/** Starts a worker, runs one request within `timeoutMs`, and ends the worker. */
export async function runInFreshWorker(options: TaskWorkerOptions, frame: TaskRequest, what: string, timeoutMs: number): Promise<AnswerFrame> {
  const worker = await startTaskWorker(options, true);
  try {
    return await worker.request(frame, what, new Deadline(timeoutMs));
  } finally {
    worker.kill();
  }
}

interface IdleWorker {
  worker: PythonWorker;
  timer: NodeJS.Timeout;
}

export interface TaskWorkerPoolOptions extends TaskWorkerOptions {
  /** Most idle workers kept; a busier moment starts more, which end when done. */
  maxIdle: number;
  /** An idle worker is ended after this long. */
  idleMs: number;
}

/**
 * Reuses workers across requests, one request per worker at a time. A worker whose request timed
 * out or that died is never reused. Idle workers do not keep the Node process alive.
 */
export class TaskWorkerPool {
  private readonly idle: IdleWorker[] = [];

  constructor(private readonly options: TaskWorkerPoolOptions) {}

  async run(frame: TaskRequest, what: string, timeoutMs: number): Promise<AnswerFrame> {
    const worker = this.takeIdle() ?? (await startTaskWorker(this.options, false));
    let answer: AnswerFrame;
    try {
      answer = await worker.request(frame, what, new Deadline(timeoutMs));
    } catch (error) {
      worker.kill();
      throw error;
    }
    this.giveBack(worker);
    return answer;
  }

  /** Ends the idle workers (the modules they imported may have changed); busy ones end when done. */
  close(): void {
    for (const entry of this.idle.splice(0)) {
      clearTimeout(entry.timer);
      entry.worker.kill();
    }
  }

  private takeIdle(): PythonWorker | null {
    for (let entry = this.idle.pop(); entry; entry = this.idle.pop()) {
      clearTimeout(entry.timer);
      if (entry.worker.alive) return entry.worker;
    }
    return null;
  }

  private giveBack(worker: PythonWorker): void {
    if (!worker.alive) return;
    if (this.idle.length >= this.options.maxIdle) {
      worker.kill();
      return;
    }
    const entry: IdleWorker = {
      worker,
      timer: setTimeout(() => {
        const index = this.idle.indexOf(entry);
        if (index >= 0) this.idle.splice(index, 1);
        worker.kill();
      }, this.options.idleMs).unref(),
    };
    this.idle.push(entry);
  }
}

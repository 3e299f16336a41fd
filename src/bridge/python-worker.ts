/**
 * One `python3 -u -m conveyor_host` child: spawn, handshake, correlated requests in both directions
 * (each with a time budget that ends the worker when spent), captured output, bounded stop, kill,
 * and crash detection. Knows frames, not components.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { channel } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ConveyorError, errorText } from '../core/errors.ts';
import { Deadline } from './deadline.ts';
import { engineFailure } from './failure.ts';
import { encodeFrame, FrameDecoder } from './frames.ts';
import { protocolVersion, type AnswerFrame, type EngineRequestFrame, type LogFrame, type OpAnswerFrame, type OpFrame, type WorkerFrame } from './protocol.ts';
import { pythonSdkDir } from './sdk-path.ts';

export interface PythonWorkerOptions {
  interpreter: string;
  /**
   * Runs this module instead of `conveyor_host`, with these extra environment variables; it must
   * hand over to `conveyor_host` in the same process (the debugger launcher of one item).
   */
  launcher?: WorkerLauncher;
  /** Longest wait for the hello frame. */
  startMs: number;
  /** False: the worker does not keep the Node process alive while nothing waits on it (pooled workers). */
  keepsProcessAlive: boolean;
  /** User code asks the engine for something; the resolved value goes back as the op's result. */
  onOp(frame: OpFrame): Promise<unknown>;
  onLog(frame: LogFrame): void;
  /** One line user code printed (stdout) or wrote to stderr. */
  onOutput(stream: 'stdout' | 'stderr', line: string): void;
}

export interface WorkerLauncher {
  module: string;
  env: Readonly<Record<string, string>>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type OutgoingRequest = DistributiveOmit<EngineRequestFrame, 'id'>;

interface Pending {
  what: string;
  deadline: Deadline;
  resolve(frame: AnswerFrame): void;
  reject(error: Error): void;
}

/**
 * glibc's malloc in the worker (the server's environment wins when it sets them). By default every
 * allocation over 128 KB is a fresh mmap and freed memory at the heap's top goes back to the kernel,
 * so each large string of a large body (the frame's, json.loads's, json.dumps's) page-faults its
 * memory in anew: for a 1 MB body that was about three quarters of the worker's CPU (11 ms instead
 * of 1.8 ms for one json.dumps; docs/benchmarks.md, issue 16). Allocations up to 16 MB now come from
 * the heap, which keeps up to 16 MB free for reuse. Other C libraries ignore these variables.
 */
const workerMalloc = { MALLOC_MMAP_THRESHOLD_: String(16 * 1024 * 1024), MALLOC_TRIM_THRESHOLD_: String(16 * 1024 * 1024) };

/** A frame crossing the pipe of a worker, as `workerFrames` publishes it. */
export interface WorkerFrameEvent {
  pid: number;
  direction: 'to-worker' | 'from-worker';
  /** The frame's type (`invoke`, `op`, `result`, ...). */
  type: string;
  /** `performance.now()` when the frame was handed to the pipe or decoded from it. */
  at: number;
}

/**
 * Every frame written to or read from a worker, for measuring where a round trip's time goes
 * (bench/chain-timeline.ts). Publishing is skipped while nothing subscribes: one property read per frame.
 */
export const workerFrames = channel('conveyor:python-worker-frame');

/** How many stderr lines a crash report quotes. */
const stderrMemory = 20;

export class PythonWorker {
  readonly pid: number;
  private readonly pending = new Map<number, Pending>();
  /**
   * The carried strings of each request frame not answered yet, which the worker may echo back
   * by name instead of sending them again (frames.ts): held until the request's answer is read.
   */
  private readonly echoable = new Map<number, Buffer[]>();
  private readonly exitListeners: Array<(reason: string) => void> = [];
  private readonly recentStderr: string[] = [];
  private nextId = 0;
  private exited: string | null = null;
  private ending = false;
  /** Set when a spent budget ended the worker: the exit reason names it. */
  private endedBy: string | null = null;
  private readonly exitPromise: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly toWorker: Writable,
    private readonly options: PythonWorkerOptions,
  ) {
    this.pid = child.pid ?? 0;
    this.exitPromise = new Promise((resolve) => child.once('close', () => resolve()));
  }

  /** Spawns the worker and waits (at most `startMs`) for its hello frame. */
  static start(options: PythonWorkerOptions): Promise<PythonWorker> {
    const existing = process.env.PYTHONPATH;
    const child = spawn(options.interpreter, ['-u', '-m', options.launcher?.module ?? 'conveyor_host'], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: {
        ...workerMalloc,
        ...process.env,
        ...options.launcher?.env,
        PYTHONPATH: existing ? `${pythonSdkDir}:${existing}` : pythonSdkDir,
        PYTHONIOENCODING: 'utf-8',
        PYTHONUNBUFFERED: '1',
      },
    });
    const toWorker = child.stdio[3] as Writable;
    const fromWorker = child.stdio[4] as Readable;
    const worker = new PythonWorker(child, toWorker, options);
    if (!options.keepsProcessAlive) worker.unref();
    return new Promise<PythonWorker>((resolve, reject) => {
      let greeted = false;
      const handshake = new Deadline(options.startMs);
      const fail = (error: Error): void => {
        handshake.clear();
        if (!greeted) reject(error);
        greeted = true;
      };
      handshake.start(() => {
        worker.kill();
        fail(
          new ConveyorError('ERR_TIMEOUT', `The Python worker ${worker.pid} did not start within ${options.startMs} ms; it was ended${worker.stderrSuffix()}`),
        );
      });
      const decoder = new FrameDecoder((requestId, slotIndex) => worker.echoable.get(requestId)?.[slotIndex]);
      child.once('error', (error) => {
        fail(
          new ConveyorError('ERR_BRIDGE', `Cannot start the Python interpreter '${options.interpreter}': ${error.message}`, {
            hint: 'Set CONVEYOR_PYTHON to a python3 executable',
            cause: error,
          }),
        );
      });
      fromWorker.on('data', (chunk: Buffer) => {
        let frames: unknown[];
        try {
          frames = decoder.push(chunk);
        } catch (error) {
          worker.breakProtocol(errorText(error));
          return;
        }
        for (const frame of frames as WorkerFrame[]) {
          if (greeted) {
            worker.receive(frame);
          } else if (frame.t !== 'hello' || frame.protocol !== protocolVersion) {
            worker.kill();
            const spoken = frame.t === 'hello' ? String(frame.protocol) : `no hello (${frame.t})`;
            fail(
              new ConveyorError(
                'ERR_BRIDGE',
                `The Python worker speaks protocol ${spoken}, the engine ${protocolVersion}: the SDK in ${pythonSdkDir} does not match this engine`,
              ),
            );
            return;
          } else {
            handshake.clear();
            greeted = true;
            resolve(worker);
          }
        }
      });
      fromWorker.on('error', () => undefined);
      toWorker.on('error', () => undefined);
      worker.captureLines(child.stdout!, 'stdout');
      worker.captureLines(child.stderr!, 'stderr');
      child.once('close', (code, signal) => {
        const reason = signal ? `signal ${signal}` : `exit code ${String(code)}`;
        fail(new ConveyorError('ERR_BRIDGE', `The Python worker ended (${reason}) before its handshake${worker.stderrSuffix()}`));
        worker.onChildExit(reason);
      });
    });
  }

  /**
   * Sends a request frame and resolves with the worker's answer (result or failure). When the
   * deadline's budget is spent first, the worker is killed and the promise rejects with ERR_TIMEOUT.
   */
  request(frame: OutgoingRequest, what: string, deadline: Deadline): Promise<AnswerFrame> {
    if (this.exited !== null) {
      return Promise.reject(new ConveyorError('ERR_BRIDGE', `The Python worker ${this.pid} has already exited (${this.exited}); cannot ${what}`));
    }
    const id = ++this.nextId;
    return new Promise<AnswerFrame>((resolve, reject) => {
      this.pending.set(id, { what, deadline, resolve, reject });
      deadline.start(() => this.timeOut(id));
      const carried = this.writeFrame({ ...frame, id });
      if (carried.length > 0) this.echoable.set(id, carried);
    });
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
  }

  get alive(): boolean {
    return this.exited === null;
  }

  /** Asks for teardown (on_tear_down runs), waits up to `graceMs` for the exit, then kills. */
  async stop(graceMs: number): Promise<AnswerFrame | null> {
    if (this.exited !== null) return null;
    this.ending = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, graceMs));
    });
    const teardown = this.request({ t: 'teardown' }, 'run on_tear_down', new Deadline(Math.max(1, graceMs))).catch(() => null);
    const outcome = await Promise.race([Promise.all([teardown, this.exitPromise]).then(([answer]) => answer), late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.kill();
      await this.exitPromise;
      return null;
    }
    return outcome;
  }

  kill(): void {
    this.ending = true;
    if (this.exited === null) this.child.kill('SIGKILL');
  }

  /** The budget of request `id` is spent: that caller gets ERR_TIMEOUT and the worker is ended. */
  private timeOut(id: number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    this.echoable.delete(id);
    const ms = pending.deadline.budgetMs;
    this.endedBy = `it did not ${pending.what} within ${ms} ms`;
    pending.reject(new ConveyorError('ERR_TIMEOUT', `The Python worker ${this.pid} did not ${pending.what} within ${ms} ms; it was ended`));
    if (this.exited === null) this.child.kill('SIGKILL');
  }

  private receive(frame: WorkerFrame): void {
    if (workerFrames.hasSubscribers)
      workerFrames.publish({ pid: this.pid, direction: 'from-worker', type: frame.t, at: performance.now() } satisfies WorkerFrameEvent);
    switch (frame.t) {
      case 'result':
      case 'failure': {
        const pending = this.pending.get(frame.id);
        if (pending) {
          this.pending.delete(frame.id);
          this.echoable.delete(frame.id);
          pending.deadline.clear();
          pending.resolve(frame);
        }
        return;
      }
      case 'op':
        this.options.onOp(frame).then(
          (value) => this.answerOp({ t: 'result', id: frame.id, value: value ?? null }),
          (error: unknown) => this.answerOp({ t: 'failure', id: frame.id, failure: engineFailure(error) }),
        );
        return;
      case 'log':
        this.options.onLog(frame);
        return;
      case 'hello':
        this.breakProtocol('a second hello frame');
        return;
      default: {
        const unexpected: never = frame;
        this.breakProtocol(`unexpected frame ${JSON.stringify(unexpected).slice(0, 200)}`);
      }
    }
  }

  private answerOp(frame: OpAnswerFrame): void {
    if (this.exited === null) this.writeFrame(frame);
  }

  /**
   * The frame's buffers in one `writev` (a carried body goes out from its own buffer, uncopied).
   * Returns its carried strings, in slot order.
   */
  private writeFrame(frame: EngineRequestFrame | OpAnswerFrame): Buffer[] {
    const parts = encodeFrame(frame);
    if (workerFrames.hasSubscribers)
      workerFrames.publish({ pid: this.pid, direction: 'to-worker', type: frame.t, at: performance.now() } satisfies WorkerFrameEvent);
    if (parts.length === 1) {
      this.toWorker.write(parts[0]);
      return [];
    }
    this.toWorker.cork();
    for (const part of parts) this.toWorker.write(part);
    this.toWorker.uncork();
    return parts.slice(1);
  }

  private breakProtocol(detail: string): void {
    this.options.onOutput('stderr', `protocol error: ${detail}`);
    this.kill();
  }

  /** Lets Node exit while the worker idles; a pending request's deadline timer keeps it alive while it works. */
  private unref(): void {
    this.child.unref();
    for (const stream of this.child.stdio) (stream as Socket | null)?.unref();
  }

  private captureLines(stream: Readable, name: 'stdout' | 'stderr'): void {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (name === 'stderr') {
        this.recentStderr.push(line);
        if (this.recentStderr.length > stderrMemory) this.recentStderr.shift();
      }
      this.options.onOutput(name, line);
    });
  }

  private stderrSuffix(): string {
    return this.recentStderr.length > 0 ? `; last stderr:\n${this.recentStderr.join('\n')}` : '';
  }

  private onChildExit(reason: string): void {
    this.exited = reason;
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.echoable.clear();
    for (const call of pending) {
      call.deadline.clear();
      call.reject(new ConveyorError('ERR_BRIDGE', `The Python worker ${this.pid} exited (${reason}) while it was to ${call.what}${this.stderrSuffix()}`));
    }
    if (this.ending) return;
    const why = this.endedBy === null ? `exited unexpectedly (${reason})${this.stderrSuffix()}` : `was ended because ${this.endedBy}`;
    for (const listener of this.exitListeners) listener(`Python worker ${this.pid} ${why}`);
  }
}

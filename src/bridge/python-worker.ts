/**
 * One `python3 -u -m conveyor_host` child: spawn, handshake, correlated requests in both directions,
 * captured output, bounded stop, kill, and crash detection. Knows frames, not components.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ConveyorError, errorText } from '../core/errors.ts';
import { encodeFrame, FrameDecoder } from './frames.ts';
import { protocolVersion, type EngineRequestFrame, type HelloFrame, type LogFrame, type OpFrame, type ResultFrame, type WorkerFrame } from './protocol.ts';
import { pythonSdkDir } from './sdk-path.ts';

export interface PythonWorkerOptions {
  interpreter: string;
  /** User code asks the engine for something; the resolved value goes back as the op's result. */
  onOp(frame: OpFrame): Promise<unknown>;
  onLog(frame: LogFrame): void;
  /** One line user code printed (stdout) or wrote to stderr. */
  onOutput(stream: 'stdout' | 'stderr', line: string): void;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type OutgoingRequest = DistributiveOmit<EngineRequestFrame, 'id'>;

interface Pending {
  what: string;
  resolve(frame: ResultFrame): void;
  reject(error: Error): void;
}

/** How many stderr lines a crash report quotes. */
const stderrMemory = 20;

export class PythonWorker {
  readonly pid: number;
  private readonly pending = new Map<number, Pending>();
  private readonly exitListeners: Array<(reason: string) => void> = [];
  private readonly recentStderr: string[] = [];
  private nextId = 0;
  private exited: string | null = null;
  private ending = false;
  private readonly exitPromise: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly toWorker: Writable,
    private readonly options: PythonWorkerOptions,
  ) {
    this.pid = child.pid ?? 0;
    this.exitPromise = new Promise((resolve) => child.once('close', () => resolve()));
  }

  /** Spawns the worker and waits for its hello frame. */
  static start(options: PythonWorkerOptions): Promise<PythonWorker> {
    const existing = process.env.PYTHONPATH;
    const child = spawn(options.interpreter, ['-u', '-m', 'conveyor_host'], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PYTHONPATH: existing ? `${pythonSdkDir}:${existing}` : pythonSdkDir,
        PYTHONIOENCODING: 'utf-8',
        PYTHONUNBUFFERED: '1',
      },
    });
    const toWorker = child.stdio[3] as Writable;
    const fromWorker = child.stdio[4] as Readable;
    const worker = new PythonWorker(child, toWorker, options);
    return new Promise<PythonWorker>((resolve, reject) => {
      let greeted = false;
      const decoder = new FrameDecoder();
      child.once('error', (error) => {
        if (!greeted) {
          reject(new ConveyorError('ERR_BRIDGE', `Cannot start the Python interpreter '${options.interpreter}': ${error.message}`, { hint: 'Set CONVEYOR_PYTHON to a python3 executable', cause: error }));
        }
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
          if (!greeted) {
            greeted = true;
            const hello = frame as HelloFrame;
            if (hello.t !== 'hello' || hello.protocol !== protocolVersion) {
              worker.kill();
              reject(new ConveyorError('ERR_BRIDGE', `The Python worker speaks protocol ${String(hello.protocol)}, the engine ${protocolVersion}: the SDK in ${pythonSdkDir} does not match this engine`));
              return;
            }
            resolve(worker);
            continue;
          }
          worker.receive(frame);
        }
      });
      fromWorker.on('error', () => undefined);
      toWorker.on('error', () => undefined);
      worker.captureLines(child.stdout!, 'stdout');
      worker.captureLines(child.stderr!, 'stderr');
      child.once('close', (code, signal) => {
        const reason = signal ? `signal ${signal}` : `exit code ${String(code)}`;
        if (!greeted) {
          reject(new ConveyorError('ERR_BRIDGE', `The Python worker ended (${reason}) before its handshake${worker.stderrSuffix()}`));
        }
        worker.onChildExit(reason);
      });
    });
  }

  /** Sends a request frame and resolves with the worker's result frame (ok or not). */
  request(frame: OutgoingRequest, what: string): Promise<ResultFrame> {
    if (this.exited !== null) {
      return Promise.reject(new ConveyorError('ERR_BRIDGE', `The Python worker ${this.pid} has already exited (${this.exited}); cannot ${what}`));
    }
    const id = ++this.nextId;
    return new Promise<ResultFrame>((resolve, reject) => {
      this.pending.set(id, { what, resolve, reject });
      this.toWorker.write(encodeFrame({ ...frame, id }));
    });
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
  }

  get alive(): boolean {
    return this.exited === null;
  }

  /** Asks for teardown (on_tear_down runs), waits up to `graceMs` for the exit, then kills. */
  async stop(graceMs: number): Promise<ResultFrame | null> {
    if (this.exited !== null) return null;
    this.ending = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, graceMs));
    });
    const teardown = this.request({ t: 'teardown' }, 'tear down').catch(() => null);
    const outcome = await Promise.race([Promise.all([teardown, this.exitPromise]).then(([result]) => result), deadline]);
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

  private receive(frame: WorkerFrame): void {
    switch (frame.t) {
      case 'result': {
        const pending = this.pending.get(frame.id);
        if (pending) {
          this.pending.delete(frame.id);
          pending.resolve(frame);
        }
        return;
      }
      case 'op':
        this.options.onOp(frame).then(
          (value) => this.reply({ t: 'result', id: frame.id, ok: true, value: value ?? null }),
          (error: unknown) => this.reply({ t: 'result', id: frame.id, ok: false, error: { type: 'EngineError', message: errorText(error), traceback: '' } }),
        );
        return;
      case 'log':
        this.options.onLog(frame);
        return;
      default:
        this.breakProtocol(`unexpected frame ${JSON.stringify(frame).slice(0, 200)}`);
    }
  }

  private reply(frame: ResultFrame): void {
    if (this.exited === null) this.toWorker.write(encodeFrame(frame));
  }

  private breakProtocol(detail: string): void {
    this.options.onOutput('stderr', `protocol error: ${detail}`);
    this.kill();
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
    for (const call of pending) {
      call.reject(new ConveyorError('ERR_BRIDGE', `The Python worker ${this.pid} exited (${reason}) while it was to ${call.what}${this.stderrSuffix()}`));
    }
    if (!this.ending) {
      for (const listener of this.exitListeners) listener(`Python worker ${this.pid} exited unexpectedly (${reason})${this.stderrSuffix()}`);
    }
  }
}

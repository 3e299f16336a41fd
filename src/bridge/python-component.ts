/**
 * A ComponentInstance backed by one Python worker: the engine's calls become `invoke` frames, and
 * what user code asks during a call (send, reply, set_timer, log) is routed to that call's context.
 * Every wait on the worker has a budget (BridgeTimeouts); a spent budget ends the worker.
 */
import type { AsyncResponse, CallContext, ComponentContext, ComponentInstance, Reply } from '../core/component.ts';
import { ConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import { Deadline } from './deadline.ts';
import { describeFailure, PythonError, userFrameSuffix, type PythonFailure } from './failure.ts';
import type { AnswerFrame, ClassRef, HookCall, HookName, LogFrame, OpFrame } from './protocol.ts';
import { PythonWorker, type OutgoingRequest, type WorkerLauncher } from './python-worker.ts';
import { defaultBridgeTimeouts, type BridgeTimeouts } from './timeouts.ts';

export interface PythonComponentSpec {
  module: string;
  className: string;
  classpaths: string[];
  /** Default: process.env.CONVEYOR_PYTHON ?? 'python3'. */
  interpreter?: string;
  /**
   * The Python adapter class of a service or operation (the class binding its `get_adapter_type()`
   * names), hosted in the same worker. Built-in adapters are the engine's and are not given here.
   */
  adapter?: ClassRef | null;
  /** Another module to start the worker with (item-python.ts: a debugger), handing over to conveyor_host. */
  launcher?: WorkerLauncher;
  /** Budgets of the waits on the worker; each one not given takes its default (defaultBridgeTimeouts). */
  timeouts?: Partial<BridgeTimeouts>;
}

export class PythonComponent implements ComponentInstance {
  private worker: PythonWorker | null = null;
  private context: ComponentContext | null = null;
  private readonly calls = new Map<number, CallContext>();
  /** The budget of each call being handled, paused while the engine serves one of its ops. */
  private readonly deadlines = new Map<number, Deadline>();
  private nextCall = 0;
  /** The call being handled, to which printed output is attributed. */
  private currentCall: CallContext | null = null;
  private readonly exitListeners: Array<(reason: string) => void> = [];
  /** stop() or kill() was called: a worker still starting must not outlive it. */
  private ended = false;
  private readonly timeouts: BridgeTimeouts;

  constructor(
    private readonly spec: PythonComponentSpec,
    private readonly interpreter: string,
  ) {
    this.timeouts = { ...defaultBridgeTimeouts, ...spec.timeouts };
  }

  /** The worker's process id, once started. */
  get pid(): number | null {
    return this.worker?.pid ?? null;
  }

  async init(context: ComponentContext): Promise<void> {
    this.context = context;
    const worker = await PythonWorker.start({
      interpreter: this.interpreter,
      ...(this.spec.launcher ? { launcher: this.spec.launcher } : {}),
      startMs: this.timeouts.startMs,
      keepsProcessAlive: true,
      onOp: (frame) => this.handleOp(frame),
      onLog: (frame) => this.handleLog(frame),
      onOutput: (stream, line) => this.handleOutput(stream, line),
    });
    this.worker = worker;
    if (this.ended) {
      worker.kill();
      throw new ConveyorError('ERR_BRIDGE', `${context.configName} (${this.label()}) was stopped while its worker was starting`);
    }
    worker.onExit((reason) => {
      for (const listener of this.exitListeners) listener(reason);
    });
    const init: OutgoingRequest = {
      t: 'init',
      module: this.spec.module,
      className: this.spec.className,
      classpaths: this.spec.classpaths,
      namespace: context.namespace,
      configName: context.configName,
      kind: context.kind,
      job: context.job,
      settings: { host: context.settings.host, adapter: context.settings.adapter },
      adapter: this.spec.adapter ?? null,
    };
    const answer = await worker.request(init, `start ${this.label()}`, new Deadline(this.timeouts.initMs));
    if (answer.t === 'failure') {
      worker.kill();
      const failure = answer.failure;
      const step = failure.step === 'import' ? 'importing it failed' : `${failure.step} raised`;
      throw new PythonError(
        'ERR_COMPONENT_FAILED',
        `Cannot start ${context.configName} (${this.label()}): ${step}: ${describeFailure(failure)}\n${failure.traceback}`,
        failure,
      );
    }
  }

  onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    return this.invoke({ hook: 'message', args: { request, messageId: call.messageId } }, call);
  }

  onProcessInput(input: Reply, call: CallContext): Promise<Reply> {
    return this.invoke({ hook: 'process_input', args: { input } }, call);
  }

  onResponse(request: MessageBody, response: Reply, asyncResponse: AsyncResponse, call: CallContext): Promise<Reply> {
    const args = {
      request,
      response,
      callRequest: asyncResponse.callRequest,
      callResponse: asyncResponse.callResponse,
      completionKey: asyncResponse.completionKey,
    };
    return this.invoke({ hook: 'response', args }, call);
  }

  onComplete(request: MessageBody, response: Reply, call: CallContext): Promise<Reply> {
    return this.invoke({ hook: 'complete', args: { request, response } }, call);
  }

  async stop(graceMs: number): Promise<void> {
    this.ended = true;
    const worker = this.worker;
    if (!worker) return;
    const answer = await worker.stop(graceMs);
    if (answer?.t === 'failure') {
      this.context?.log('Warning', `on_tear_down raised ${describeFailure(answer.failure)}\n${answer.failure.traceback}`, {
        sourceClass: this.spec.className,
        sourceMethod: 'on_tear_down',
      });
    }
  }

  kill(): void {
    this.ended = true;
    this.worker?.kill();
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
  }

  /** Sends one hook call and turns a Python failure into a PythonError. */
  private async invoke(hookCall: HookCall, call: CallContext): Promise<Reply> {
    const worker = this.worker;
    if (!worker) throw new ConveyorError('ERR_BRIDGE', `${this.label()} is not started: init() must succeed before it handles calls`);
    const key = ++this.nextCall;
    const deadline = new Deadline(this.timeouts.callMs);
    this.calls.set(key, call);
    this.deadlines.set(key, deadline);
    this.currentCall = call;
    let answer: AnswerFrame;
    try {
      answer = await worker.request({ t: 'invoke', call: key, ...hookCall }, `run ${hookMethods[hookCall.hook]} of ${this.label()}`, deadline);
    } finally {
      this.calls.delete(key);
      this.deadlines.delete(key);
      if (this.currentCall === call) this.currentCall = null;
    }
    if (answer.t === 'result') return answer.value as Reply;
    throw this.hookFailure(answer.failure, call);
  }

  private hookFailure(failure: PythonFailure, call: CallContext): PythonError {
    // IoP's %traceback Host setting (default on) decides whether the traceback is logged.
    if (!/^(0|false)$/i.test(this.context?.settings.host['%traceback'] ?? '')) {
      this.context?.log('Error', failure.traceback || describeFailure(failure), { sourceClass: this.spec.className, sourceMethod: failure.step }, call);
    }
    // IoP's wording, then where user code raised.
    const text = `Exception in Python class: ${this.label()} - ${failure.type} - ${failure.message}${userFrameSuffix(failure)}`;
    return new PythonError('ERR_COMPONENT_FAILED', text, failure);
  }

  /** Serves an op; the call's budget does not run meanwhile (the engine is working, not Python). */
  private async handleOp(frame: OpFrame): Promise<unknown> {
    const deadline = frame.call === null ? undefined : this.deadlines.get(frame.call);
    deadline?.pause();
    try {
      return await this.serveOp(frame, this.requireContext());
    } finally {
      deadline?.resume();
    }
  }

  private async serveOp(frame: OpFrame, context: ComponentContext): Promise<unknown> {
    switch (frame.op) {
      case 'new_call': {
        const key = ++this.nextCall;
        this.calls.set(key, context.newCall());
        return key;
      }
      case 'end_call':
        if (frame.call !== null) this.calls.delete(frame.call);
        return null;
      case 'import_schema':
        if (!context.importSchema) throw new ConveyorError('ERR_NOT_AVAILABLE', 'This host imports no schemas');
        await context.importSchema(frame.path, frame.package, frame.schema);
        return null;
      case 'transform':
        if (!context.transform) throw new ConveyorError('ERR_NOT_AVAILABLE', 'This host runs no DTL transforms');
        return context.transform(frame.transform, frame.body);
      case 'send_sync':
        return this.callFor(frame, context).sendSync(frame.target, frame.body, { timeoutMs: frame.timeoutMs, description: frame.description ?? undefined });
      case 'send_async':
        await this.callFor(frame, context).sendAsync(frame.target, frame.body, {
          description: frame.description ?? undefined,
          completionKey: frame.completionKey,
          responseRequired: frame.responseRequired,
        });
        return null;
      case 'send_multi':
        return this.callFor(frame, context).sendMultiSync(frame.calls, { timeoutMs: frame.timeoutMs, description: frame.description ?? undefined });
      case 'set_timer':
        this.callFor(frame, context).setTimer(frame.timeoutMs, frame.completionKey);
        return null;
      case 'reply':
        await this.callFor(frame, context).reply(frame.body);
        return null;
      default: {
        const unknown: never = frame;
        throw new ConveyorError('ERR_BRIDGE', `Unknown operation '${String((unknown as { op: unknown }).op)}' from the Python worker`);
      }
    }
  }

  /** The context of the call an op belongs to; outside any call, a fresh one (a new session). */
  private callFor(frame: OpFrame, context: ComponentContext): CallContext {
    if (frame.call === null) return context.newCall();
    const call = this.calls.get(frame.call);
    if (!call) throw new ConveyorError('ERR_BRIDGE', `${frame.op}: the call it belongs to has already finished (a thread outliving its handler?)`);
    return call;
  }

  private handleLog(frame: LogFrame): void {
    const context = this.context;
    if (!context) return;
    if (frame.console) {
      process.stderr.write(`[${context.configName}] ${frame.type} ${frame.sourceClass}.${frame.sourceMethod}: ${frame.text}\n`);
      return;
    }
    const call = frame.call === null ? null : (this.calls.get(frame.call) ?? null);
    context.log(frame.type, frame.text, { sourceClass: frame.sourceClass, sourceMethod: frame.sourceMethod }, call);
  }

  private handleOutput(stream: 'stdout' | 'stderr', line: string): void {
    if (line === '') return;
    this.context?.log(stream === 'stdout' ? 'Info' : 'Warning', line, { sourceClass: this.spec.className, sourceMethod: stream }, this.currentCall);
  }

  private requireContext(): ComponentContext {
    if (!this.context) throw new ConveyorError('ERR_BRIDGE', `${this.label()} received an operation before init`);
    return this.context;
  }

  private label(): string {
    return `${this.spec.module}.${this.spec.className}`;
  }
}

const hookMethods: Record<HookName, string> = {
  message: 'on_message',
  process_input: 'on_process_input',
  response: 'on_response',
  complete: 'on_complete',
};

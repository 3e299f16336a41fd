/**
 * A ComponentInstance backed by one Python worker: the engine's calls become `invoke` frames, and
 * what user code asks during a call (send, reply, set_timer, log) is routed to that call's context.
 */
import type { AsyncResponse, CallContext, ComponentContext, ComponentInstance, Reply } from '../core/component.ts';
import { ConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import type { ClassRef, HookName, LogFrame, OpFrame, ResultFrame } from './protocol.ts';
import { PythonWorker } from './python-worker.ts';

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
}

export class PythonComponent implements ComponentInstance {
  private worker: PythonWorker | null = null;
  private context: ComponentContext | null = null;
  private readonly calls = new Map<number, CallContext>();
  private nextCall = 0;
  /** The call being handled, to which printed output is attributed. */
  private currentCall: CallContext | null = null;
  private readonly exitListeners: Array<(reason: string) => void> = [];
  /** stop() or kill() was called: a worker still starting must not outlive it. */
  private ended = false;

  constructor(
    private readonly spec: PythonComponentSpec,
    private readonly interpreter: string,
  ) {}

  /** The worker's process id, once started. */
  get pid(): number | null {
    return this.worker?.pid ?? null;
  }

  async init(context: ComponentContext): Promise<void> {
    this.context = context;
    const worker = await PythonWorker.start({
      interpreter: this.interpreter,
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
    const result = await worker.request(
      {
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
      },
      `start ${this.label()}`,
    );
    if (!result.ok) {
      worker.kill();
      const { type, message, traceback, hook } = result.error;
      const step = hook === 'import' ? 'importing it failed' : `${hook ?? 'on_init'} raised`;
      throw new ConveyorError('ERR_COMPONENT_FAILED', `Cannot start ${context.configName} (${this.label()}): ${step}: ${type}: ${message}\n${traceback}`, {
        details: result.error,
      });
    }
  }

  onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    return this.invoke('message', { request, messageId: call.messageId }, call);
  }

  onProcessInput(input: Reply, call: CallContext): Promise<Reply> {
    return this.invoke('process_input', { input }, call);
  }

  onResponse(request: MessageBody, response: Reply, asyncResponse: AsyncResponse, call: CallContext): Promise<Reply> {
    const args = { request, response, callRequest: asyncResponse.callRequest, callResponse: asyncResponse.callResponse, completionKey: asyncResponse.completionKey };
    return this.invoke('response', args, call);
  }

  onComplete(request: MessageBody, response: Reply, call: CallContext): Promise<Reply> {
    return this.invoke('complete', { request, response }, call);
  }

  async stop(graceMs: number): Promise<void> {
    this.ended = true;
    const worker = this.worker;
    if (!worker) return;
    const result = await worker.stop(graceMs);
    if (result && !result.ok) {
      this.context?.log('Warning', `on_tear_down raised ${result.error.type}: ${result.error.message}\n${result.error.traceback}`, { sourceClass: this.spec.className, sourceMethod: 'on_tear_down' });
    }
  }

  kill(): void {
    this.ended = true;
    this.worker?.kill();
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
  }

  private async invoke(hook: HookName, args: Record<string, unknown>, call: CallContext): Promise<Reply> {
    const worker = this.worker;
    if (!worker) throw new ConveyorError('ERR_BRIDGE', `${this.label()} is not started: init() must succeed before it handles calls`);
    const key = ++this.nextCall;
    this.calls.set(key, call);
    this.currentCall = call;
    let result: ResultFrame;
    try {
      result = await worker.request({ t: 'invoke', call: key, hook, args }, `run ${hookMethods[hook]} of ${this.label()}`);
    } finally {
      this.calls.delete(key);
      if (this.currentCall === call) this.currentCall = null;
    }
    if (result.ok) return result.value as Reply;
    const { type, message, traceback } = result.error;
    const method = result.error.hook ?? hookMethods[hook];
    // IoP's %traceback Host setting (default on) decides whether the traceback is logged.
    if (!/^(0|false)$/i.test(this.context?.settings.host['%traceback'] ?? '')) {
      this.context?.log('Error', traceback || `${type}: ${message}`, { sourceClass: this.spec.className, sourceMethod: method }, call);
    }
    throw new ConveyorError('ERR_COMPONENT_FAILED', `Exception in Python class: ${this.spec.module}.${this.spec.className} - ${type} - ${message}`, { details: result.error });
  }

  private async handleOp(frame: OpFrame): Promise<unknown> {
    const context = this.requireContext();
    if (frame.op === 'new_call') {
      const key = ++this.nextCall;
      this.calls.set(key, context.newCall());
      return key;
    }
    if (frame.op === 'end_call') {
      if (frame.call !== null) this.calls.delete(frame.call);
      return null;
    }
    if (frame.op === 'import_schema') {
      if (!context.importSchema) throw new ConveyorError('ERR_NOT_AVAILABLE', 'This host imports no schemas');
      await context.importSchema(required(frame.path, 'path'), required(frame.package, 'package'), required(frame.schema, 'schema'));
      return null;
    }
    if (frame.op === 'transform') {
      if (!context.transform) throw new ConveyorError('ERR_NOT_AVAILABLE', 'This host runs no DTL transforms');
      return context.transform(required(frame.transform, 'transform'), required(frame.body, 'body'));
    }
    const call = this.callFor(frame, context);
    const description = frame.description ?? undefined;
    switch (frame.op) {
      case 'send_sync':
        return call.sendSync(required(frame.target, 'target'), required(frame.body, 'body'), { timeoutMs: frame.timeoutMs ?? -1, description });
      case 'send_async':
        await call.sendAsync(required(frame.target, 'target'), required(frame.body, 'body'), {
          description,
          completionKey: frame.completionKey ?? null,
          responseRequired: frame.responseRequired ?? true,
        });
        return null;
      case 'send_multi':
        return call.sendMultiSync(required(frame.calls, 'calls'), { timeoutMs: frame.timeoutMs ?? -1, description });
      case 'set_timer':
        call.setTimer(frame.timeoutMs ?? -1, frame.completionKey ?? null);
        return null;
      case 'reply':
        await call.reply(frame.body ?? null);
        return null;
      default:
        throw new ConveyorError('ERR_BRIDGE', `Unknown operation '${String(frame.op)}' from the Python worker`);
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

function required<T>(value: T | null | undefined, name: string): T {
  if (value === undefined || value === null) throw new ConveyorError('ERR_BRIDGE', `The Python worker sent an operation without '${name}'`);
  return value;
}

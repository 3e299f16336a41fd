/**
 * The OpenTelemetry implementation of the tracing seam. Imported only by start-tracing.ts (lazily,
 * when OTEL_* variables turn tracing on) and by tests: nothing else may import it, so a server with
 * tracing off never loads the SDK.
 *
 * Spans (names and attributes are documented in docs/engine.md, "Traces"):
 * - one per hop — `service <item>` (kind SERVER, a trace starts there), `process <item>` and
 *   `operation <item>` (kind CONSUMER, children of the span that sent the message);
 * - one per call into the component, child of its hop — `python on_message`, `python on_response`…
 *   for Python components (the round trip to the worker), `on_message`… for built-in ones.
 * Messages sent during a call carry that call's span as their traceparent, so the next hop hangs
 * under the Python code that sent it.
 *
 * A service input that sent nothing and did not fail (an idle poll, every CallInterval) is marked
 * idle and not exported: a polling service would otherwise fill the backend with empty traces.
 */
import {
  diag,
  DiagConsoleLogger,
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
// Static imports: this whole module is the lazily loaded part (a dynamic import of these CommonJS
// packages loses their named exports once bundled).
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, hostDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span as SdkSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { PythonComponent } from '../../bridge/python-component.ts';
import { PythonError } from '../../bridge/failure.ts';
import type { AsyncResponse, CallContext, ComponentContext, ComponentInstance, Reply } from '../../core/component.ts';
import { errorText } from '../../core/errors.ts';
import type { MessageBody, StoredMessage } from '../../core/message.ts';
import { MessageCall } from '../message-call.ts';
import type { Hop, HopItem, MessageTracer } from './message-tracer.ts';
import { formatTraceParent, parseTraceParent } from './traceparent.ts';
import type { TracingConfig } from './tracing-config.ts';

const instrumentationName = 'conveyor.engine';
/** Set on the spans of a service input that sent nothing: they are not exported. */
const idle = 'conveyor.idle';

/** Passes every span on to `next` except idle ones. */
class SkipIdleSpans implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: SdkSpan, parent: Context): void {
    this.next.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    if (span.attributes[idle] !== true) this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/** The context a span continues: the parent a traceparent names, or a new trace. */
function parentContext(traceParent: string | null | undefined): Context {
  const parent = parseTraceParent(traceParent);
  return parent === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true });
}

function traceParentOf(span: Span): string {
  return formatTraceParent(span.spanContext());
}

function recordFailure(span: Span, error: unknown): void {
  const text = errorText(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: text });
  if (error instanceof PythonError) {
    span.addEvent('exception', {
      'exception.type': error.failure.type,
      'exception.message': error.failure.message,
      'exception.stacktrace': error.failure.traceback,
    });
  } else if (error instanceof Error) {
    span.recordException(error);
  }
}

class OtelHop implements Hop {
  private readonly traceParent: string;
  private failed = false;

  constructor(
    private readonly span: Span,
    private readonly hasSession: boolean,
  ) {
    this.traceParent = traceParentOf(span);
  }

  enter(call: MessageCall): void {
    call.traceParent = this.traceParent;
  }

  retry(error: string, delayMs: number): void {
    this.span.addEvent('retry', { 'exception.message': error, 'conveyor.retry.delay_ms': delayMs });
  }

  fail(error: string): void {
    this.failed = true;
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  }

  end(sessionId?: number | null): void {
    if (!this.hasSession) {
      // A service's input: its session exists once it sent something; nothing sent and no failure is an idle poll.
      if (sessionId !== undefined && sessionId !== null) this.span.setAttribute('conveyor.session.id', sessionId);
      else if (!this.failed) this.span.setAttribute(idle, true);
    }
    this.span.end();
  }
}

/** A component instance whose calls are spans; everything else passes through. */
class TracedInstance implements ComponentInstance {
  private readonly prefix: string;

  constructor(
    private readonly inner: ComponentInstance,
    private readonly tracer: Tracer,
    private readonly item: HopItem,
  ) {
    this.prefix = inner instanceof PythonComponent ? 'python ' : '';
  }

  init(context: ComponentContext): Promise<void> {
    return this.inner.init(context);
  }

  onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    return this.traced('on_message', call, () => this.inner.onMessage(request, call));
  }

  onProcessInput(input: Reply, call: CallContext): Promise<Reply> {
    return this.traced('on_process_input', call, () => this.inner.onProcessInput(input, call));
  }

  onResponse(request: MessageBody, response: Reply, asyncResponse: AsyncResponse, call: CallContext): Promise<Reply> {
    return this.traced('on_response', call, () => this.inner.onResponse(request, response, asyncResponse, call));
  }

  onComplete(request: MessageBody, response: Reply, call: CallContext): Promise<Reply> {
    return this.traced('on_complete', call, () => this.inner.onComplete(request, response, call));
  }

  stop(graceMs: number): Promise<void> {
    return this.inner.stop(graceMs);
  }

  kill(): void {
    this.inner.kill();
  }

  onExit(listener: (reason: string) => void): void {
    this.inner.onExit(listener);
  }

  private async traced(method: string, call: CallContext, run: () => Promise<Reply>): Promise<Reply> {
    // Only calls inside a traced hop get a span (a service's own sends outside any input have none).
    if (!(call instanceof MessageCall) || call.traceParent === null) return run();
    const attributes: Attributes = {
      'conveyor.item': this.item.name,
      'conveyor.item.class': this.item.classname,
      'code.function.name': method,
    };
    if (this.inner instanceof PythonComponent && this.inner.pid !== null) attributes['conveyor.worker.pid'] = this.inner.pid;
    const span = this.tracer.startSpan(`${this.prefix}${method}`, { kind: SpanKind.INTERNAL, attributes }, parentContext(call.traceParent));
    const hop = call.traceParent;
    call.traceParent = traceParentOf(span);
    try {
      const reply = await run();
      if (call.request === null && call.sessionId === null) span.setAttribute(idle, true);
      return reply;
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      call.traceParent = hop;
      span.end();
    }
  }
}

export class OtelMessageTracer implements MessageTracer {
  private readonly tracer: Tracer;
  private readonly provider: BasicTracerProvider;
  /** The service.name its spans are exported under. */
  readonly serviceName: string;

  constructor(processors: SpanProcessor[], resource: Resource) {
    this.provider = new BasicTracerProvider({ resource, spanProcessors: processors });
    this.tracer = this.provider.getTracer(instrumentationName);
    this.serviceName = String(resource.attributes['service.name']);
  }

  startHop(item: HopItem, message: StoredMessage | null): Hop {
    const attributes: Attributes = {
      'conveyor.namespace': item.namespace,
      'conveyor.item': item.name,
      'conveyor.item.kind': item.kind,
      'conveyor.item.class': item.classname,
      'messaging.system': 'conveyor',
      'messaging.operation.type': 'process',
      'messaging.destination.name': item.name,
    };
    if (message !== null) {
      attributes['conveyor.message.id'] = message.id;
      attributes['messaging.message.id'] = String(message.id);
      attributes['conveyor.session.id'] = message.sessionId;
      attributes['conveyor.message.source'] = message.source;
      attributes['conveyor.message.class'] = message.body.classname;
    }
    const kind = message === null ? SpanKind.SERVER : SpanKind.CONSUMER;
    const span = this.tracer.startSpan(`${item.kind} ${item.name}`, { kind, attributes }, parentContext(message?.traceParent));
    return new OtelHop(span, message !== null);
  }

  traceInstance(instance: ComponentInstance, item: HopItem): ComponentInstance {
    return new TracedInstance(instance, this.tracer, item);
  }

  /** Exports every span ended so far. */
  forceFlush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES, else `conveyor`; host.name; process.pid. */
export function tracingResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'conveyor', 'process.pid': process.pid }))
    .merge(detectResources({ detectors: [hostDetector, envDetector] }));
}

export function tracerWith(processors: SpanProcessor[], resource: Resource = tracingResource()): OtelMessageTracer {
  return new OtelMessageTracer(
    processors.map((processor) => new SkipIdleSpans(processor)),
    resource,
  );
}

function otlpExporter(config: TracingConfig): SpanExporter {
  // Endpoint, headers, timeout and compression come from OTEL_EXPORTER_OTLP_* (read by the exporter).
  return config.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
}

/** The tracer the environment asks for: OTLP spans in batches (OTEL_BSP_*), console spans one by one. */
/**
 * OTEL_LOG_LEVEL (error, warn, info, debug, verbose, all): the SDK's own diagnostics — a collector
 * that refuses or cannot be reached, spans dropped — on stderr. Unset, the SDK stays silent.
 */
function logSdkDiagnostics(): void {
  const level = process.env['OTEL_LOG_LEVEL']?.trim().toUpperCase();
  const logLevel = level === undefined ? undefined : (DiagLogLevel as unknown as Record<string, unknown>)[level];
  if (typeof logLevel !== 'number' || logLevel === DiagLogLevel.NONE) return;
  diag.setLogger(new DiagConsoleLogger(), { logLevel, suppressOverrideMessage: true });
}

export function tracerFromConfig(config: TracingConfig): OtelMessageTracer {
  logSdkDiagnostics();
  const processors: SpanProcessor[] = [];
  for (const name of config.exporters) {
    processors.push(name === 'otlp' ? new BatchSpanProcessor(otlpExporter(config)) : new SimpleSpanProcessor(new ConsoleSpanExporter()));
  }
  return tracerWith(processors);
}

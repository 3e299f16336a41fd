/**
 * The tracing seam of the engine. Off by default: `activeTracer()` is null, no OpenTelemetry module
 * is loaded (start-tracing.ts imports it only when OTEL_* variables configure tracing), and the hot
 * path pays one null check per hop — no span, no string, no object per message.
 *
 * When on, a hop is one item handling one message (or a service handling one input): a span per hop,
 * a child span per call into the component (the Python call for Python components), and the sender's
 * span carried to the next hop as a W3C traceparent in the message's stored header
 * (`StoredMessage.traceParent`), so a claim on another node continues the same trace.
 *
 * One tracer per process, as OpenTelemetry's own global provider: the server installs it at start.
 */
import type { ComponentInstance } from '../../core/component.ts';
import type { ComponentKind } from '../../core/components.ts';
import type { StoredMessage } from '../../core/message.ts';
import type { MessageCall } from '../message-call.ts';

/** Which item handles a hop. */
export interface HopItem {
  namespace: string;
  name: string;
  kind: ComponentKind;
  classname: string;
}

/** The span of one hop, from the moment a job takes the message to its outcome (retries included). */
export interface Hop {
  /** A call context of this hop (one per attempt): messages it sends become children of the hop. */
  enter(call: MessageCall): void;
  /** An attempt failed and is retried after `delayMs`. */
  retry(error: string, delayMs: number): void;
  /** The hop failed for good (or the item stopped under it). */
  fail(error: string): void;
  /** Ends the span; `sessionId` for a service, whose session exists only once it sent something. */
  end(sessionId?: number | null): void;
}

export interface MessageTracer {
  /** `message` null: a service handling an input or a poll (a trace starts there). */
  startHop(item: HopItem, message: StoredMessage | null): Hop;
  /** The same instance, with a child span around each call into it. */
  traceInstance(instance: ComponentInstance, item: HopItem): ComponentInstance;
  /** Exports what is buffered and stops; later hops are not traced. */
  shutdown(): Promise<void>;
}

let current: MessageTracer | null = null;

export function activeTracer(): MessageTracer | null {
  return current;
}

/** Installs the process's tracer (null: tracing off). Returns the one it replaces. */
export function installTracer(tracer: MessageTracer | null): MessageTracer | null {
  const previous = current;
  current = tracer;
  return previous;
}

/** The instance the host drives: traced when tracing is on, the instance itself otherwise. */
export function traceInstance(instance: ComponentInstance, item: HopItem): ComponentInstance {
  return current === null ? instance : current.traceInstance(instance, item);
}

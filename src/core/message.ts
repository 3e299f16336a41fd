/** Messages: a header (routing, status, times) and a body carried as text. */

/**
 * How a body is carried. `json`: the IoP JSON carrier (`IOP.Message`: classname + compact JSON).
 * `pickle`: the IoP pickle carrier (base64 of a Python pickle). `native`: a built-in class such as
 * `Ens.StringRequest`, its properties as a JSON object. `empty`: no body (an empty `Ens.Request`).
 */
export type BodyEncoding = 'json' | 'pickle' | 'native' | 'empty';

export interface MessageBody {
  /** `module.Class` for Python messages, the class name for native ones. */
  classname: string;
  encoding: BodyEncoding;
  data: string;
}

export type MessageKind = 'request' | 'response';

/**
 * queued: accepted, waiting for its target. delivered: a job is working on it.
 * completed: handled. error: handling failed for good. discarded: dropped by an operator or a stop.
 */
export type MessageStatus = 'queued' | 'delivered' | 'completed' | 'error' | 'discarded';

export interface MessageHeader {
  id: number;
  namespace: string;
  sessionId: number;
  /** The request this message was sent while handling (null for a session's first message). */
  parentId: number | null;
  /** For a response: the request it answers. For a request: the response, once it exists. */
  correspondingId: number | null;
  kind: MessageKind;
  source: string;
  target: string;
  /** For requests whose caller waits: the caller expects a response. */
  responseRequired: boolean;
  status: MessageStatus;
  priority: number;
  description: string;
  error: string | null;
  attempts: number;
  createdAt: number;
  updatedAt: number;
  /** Which node holds it (scale-out), and until when. Null when not claimed. */
  leaseOwner: string | null;
  leaseUntil: number | null;
}

export interface StoredMessage extends MessageHeader {
  body: MessageBody;
  /**
   * With tracing on: the W3C traceparent of the span that sent it, stored with the message so the hop
   * that handles it — on this node or another — continues the trace. Absent when tracing is off.
   */
  traceParent?: string | null;
}

export const emptyBody: MessageBody = { classname: 'Ens.Request', encoding: 'empty', data: '' };

/**
 * The CallContext of one message (or one poll) being handled by a job: it sends on behalf of the
 * item, keeps the session, and for processes collects the replies of async requests so the host
 * can call on_response / on_complete with them.
 */
import type { AsyncResponse, AsyncSendOptions, CallContext, MultiReply, Reply, SendOptions } from '../core/component.ts';
import { ConveyorError, errorText } from '../core/errors.ts';
import type { MessageBody, StoredMessage } from '../core/message.ts';
import type { MessageRouter, Origin } from './message-router.ts';
import { timerDelay } from './timer-delay.ts';

interface Arrival {
  asyncResponse: AsyncResponse;
}

export class MessageCall implements CallContext {
  sessionId: number | null;
  /** Tracing on: the span its sends hang under (the hop, or the component call under way); else null. */
  traceParent: string | null = null;
  replied = false;
  /** Whether any async request waited for a reply: then on_complete runs even if all came back already. */
  hadAsync = false;
  private pendingCount = 0;
  private arrivals: Arrival[] = [];
  private wake: (() => void) | null = null;
  private deadline: number | null = null;

  constructor(
    private readonly router: MessageRouter,
    private readonly configName: string,
    readonly request: StoredMessage | null,
  ) {
    this.sessionId = request?.sessionId ?? null;
  }

  get messageId(): number | null {
    return this.request?.id ?? null;
  }

  get description(): string {
    return this.request?.description ?? '';
  }

  get source(): string | undefined {
    return this.request?.source;
  }

  get outstanding(): number {
    return this.pendingCount;
  }

  async sendSync(target: string, body: MessageBody, options: SendOptions = {}): Promise<Reply> {
    const sent = await this.router.send(this.origin(), target, body, { responseRequired: true, description: options.description ?? '', replyOnly: true });
    this.adoptSession(sent.message.sessionId);
    const reply = sent.reply as Promise<Reply>;
    const timeout = options.timeoutMs ?? -1;
    if (timeout < 0) return reply;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ConveyorError('ERR_TIMEOUT', `No reply from ${target} within ${timeout} ms (message ${sent.message.id})`)),
        timerDelay(timeout),
      );
    });
    try {
      return await Promise.race([reply, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  async sendAsync(target: string, body: MessageBody, options: AsyncSendOptions = {}): Promise<void> {
    const responseRequired = options.responseRequired ?? false;
    const sent = await this.router.send(this.origin(), target, body, { responseRequired, description: options.description ?? '' });
    this.adoptSession(sent.message.sessionId);
    await sent.accepted;
    if (!responseRequired || sent.reply === null) return;
    this.pendingCount++;
    this.hadAsync = true;
    const completionKey = options.completionKey ?? null;
    const arrive = (callResponse: Reply) => {
      this.pendingCount--;
      this.arrivals.push({ asyncResponse: { callRequest: body, callResponse, completionKey } });
      this.wake?.();
    };
    // A failed async request still completes the wait: on_response sees no response.
    sent.reply.then(arrive, () => arrive(null));
  }

  async sendMultiSync(calls: Array<{ target: string; body: MessageBody }>, options: SendOptions = {}): Promise<MultiReply[]> {
    const settled = await Promise.allSettled(calls.map((c) => this.sendSync(c.target, c.body, options)));
    return settled.map((result, i) => {
      const call = calls[i] as { target: string; body: MessageBody };
      return result.status === 'fulfilled'
        ? { target: call.target, request: call.body, response: result.value, status: 'ok' }
        : { target: call.target, request: call.body, response: null, status: errorText(result.reason) };
    });
  }

  setTimer(timeoutMs: number): void {
    this.deadline = timeoutMs < 0 ? null : Date.now() + timeoutMs;
  }

  async reply(body: Reply): Promise<void> {
    if (this.request === null) throw new ConveyorError('ERR_INVALID_INPUT', 'reply() needs a request being handled');
    if (this.replied) return;
    this.replied = true;
    await this.router.complete(this.request, { response: body });
  }

  /** The next async reply, or null once none is outstanding or the timer ran out. */
  async nextArrival(): Promise<AsyncResponse | null> {
    for (;;) {
      const arrival = this.arrivals.shift();
      if (arrival) return arrival.asyncResponse;
      if (this.pendingCount === 0) return null;
      const remaining = this.deadline === null ? null : this.deadline - Date.now();
      if (remaining !== null && remaining <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = remaining === null ? undefined : setTimeout(resolve, timerDelay(remaining));
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
  }

  private origin(): Origin {
    const origin: Origin = { source: this.configName, parentId: this.request?.id ?? null, sessionId: this.sessionId };
    // Only when traced: untraced sends keep the shape they always had.
    if (this.traceParent !== null) origin.traceParent = this.traceParent;
    return origin;
  }

  /** A poll's first send opens the session; the poll's later sends join it. */
  private adoptSession(sessionId: number): void {
    if (this.sessionId === null) this.sessionId = sessionId;
  }
}

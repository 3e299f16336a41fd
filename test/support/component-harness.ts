/**
 * For unit tests of components written in TypeScript: a ComponentContext built from settings, and
 * a CallContext that records what the component sends and answers each sync send with a scripted
 * reply. This is the edge of the component (the engine behind it is not under test).
 */
import type { AsyncSendOptions, CallContext, ComponentContext, MultiReply, Reply, SendOptions } from '../../src/core/component.ts';
import type { ComponentKind } from '../../src/core/components.ts';
import type { MessageBody } from '../../src/core/message.ts';

export interface ContextOptions {
  configName?: string;
  kind?: ComponentKind;
  host?: Record<string, string>;
  adapter?: Record<string, string>;
  transform?: (name: string, body: MessageBody) => Promise<MessageBody>;
}

export function componentContext(options: ContextOptions = {}): ComponentContext {
  return {
    namespace: 'USER',
    configName: options.configName ?? 'Item',
    kind: options.kind ?? 'operation',
    settings: { host: options.host ?? {}, adapter: options.adapter ?? {} },
    job: String(process.pid),
    log: () => {},
    ...(options.transform ? { transform: options.transform } : {}),
    newCall: () => new RecordingCall(),
  };
}

export interface SentCall {
  mode: 'sync' | 'async';
  target: string;
  body: MessageBody;
  description: string | undefined;
}

export class RecordingCall implements CallContext {
  readonly sent: SentCall[] = [];
  /** Answers a sync send; the default answers every request with a copy of it. */
  answer: (target: string, body: MessageBody) => Promise<Reply> = async (_target, body) => ({ ...body });
  /** Makes an async send fail (e.g. the store refused the request). */
  refuseAsync: Error | null = null;

  constructor(
    readonly messageId: number | null = null,
    readonly description = '',
    readonly sessionId: number | null = null,
  ) {}

  sendSync(target: string, body: MessageBody, options: SendOptions = {}): Promise<Reply> {
    this.sent.push({ mode: 'sync', target, body, description: options.description });
    return this.answer(target, body);
  }

  async sendAsync(target: string, body: MessageBody, options: AsyncSendOptions = {}): Promise<void> {
    if (this.refuseAsync) throw this.refuseAsync;
    this.sent.push({ mode: 'async', target, body, description: options.description });
  }

  sendMultiSync(): Promise<MultiReply[]> {
    return Promise.reject(new Error('sendMultiSync is not used by the built-in components'));
  }

  setTimer(): void {}

  async reply(): Promise<void> {}
}

export const textBody = (data: string, classname = 'msg.Text'): MessageBody => ({ classname, encoding: 'json', data });

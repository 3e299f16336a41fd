/**
 * Queue and message controls of one namespace (ControlOperations; docs/operations.md): suspend and
 * resume an item's queue, abort, discard, resend and edit-and-resend messages. Each action checks
 * every message it is given before it changes anything, changes the store with conditional writes
 * (a message that moved on meanwhile is reported, never overwritten), and writes one event-log entry
 * per message naming the user. Nothing here waits on user code while holding the namespace's command
 * order: a resend takes it only for the sends, and the edited body's class check runs before.
 */
import { ConveyorError } from '../core/errors.ts';
import type { MessageHeader, StoredMessage } from '../core/message.ts';
import { isSuspended } from '../core/message-suspension.ts';
import type { QueueSuspension, ResendLink, SuspendedQuery } from '../store/controls.ts';
import type { Store } from '../store/store.ts';
import type { Director } from './director.ts';
import type {
  ControlOperations,
  ControlOutcome,
  EditedMessage,
  MessageAction,
  MessageControlState,
  QueueControlState,
  ResendOutcome,
} from './namespace-operations.ts';
import { operatorQueueDepths } from './queue-depths.ts';
import { assertJsonObjectText, testRequestBody } from './test-message.ts';

/** At most this many messages per action (a page of the portal's list is 500 at most). */
export const maxMessagesPerAction = 500;

export class MessageControls implements ControlOperations {
  constructor(
    private readonly director: Director,
    private readonly store: Store,
  ) {}

  private get namespace(): string {
    return this.director.namespace;
  }

  async queues(): Promise<QueueControlState[]> {
    const [depths, suspensions, counts] = await Promise.all([
      operatorQueueDepths(this.store, this.namespace, this.director.running?.hosts),
      this.store.controls.suspendedQueues(this.namespace),
      this.store.controls.suspendedCounts(this.namespace),
    ]);
    const byItem = new Map<string, QueueControlState>();
    const entry = (item: string): QueueControlState => {
      let state = byItem.get(item);
      if (!state) byItem.set(item, (state = { item, waiting: 0, inProgress: 0, oldest: null, suspension: null, suspendedMessages: 0 }));
      return state;
    };
    for (const depth of depths) {
      Object.assign(entry(depth.target), { waiting: depth.queued, inProgress: depth.delivered, oldest: depth.oldest });
    }
    for (const suspension of suspensions) entry(suspension.item).suspension = suspension;
    for (const { target, count } of counts) entry(target).suspendedMessages = count;
    return [...byItem.values()].sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
  }

  async suspendQueue(item: string, user: string): Promise<QueueSuspension> {
    await this.requireItem(item);
    const suspension = { item, suspendedBy: user, suspendedAt: Date.now() };
    const fresh = await this.store.controls.suspendQueue(this.namespace, suspension);
    const current = (await this.store.controls.suspendedQueues(this.namespace)).find((s) => s.item === item) ?? suspension;
    this.apply(item, true);
    if (fresh) this.director.log.write('Info', `Queue of ${item} suspended by ${user}: its messages stay queued until it is resumed`, { configName: item });
    return current;
  }

  async resumeQueue(item: string, user: string): Promise<void> {
    await this.requireItem(item);
    const was = await this.store.controls.resumeQueue(this.namespace, item);
    this.apply(item, false);
    if (was) this.director.log.write('Info', `Queue of ${item} resumed by ${user}`, { configName: item });
  }

  async message(id: number): Promise<MessageControlState> {
    const message = await this.get(id);
    return {
      message: headerOf(message),
      suspended: isSuspended(message),
      actions: this.actionsOf(message),
      links: await this.store.controls.links(this.namespace, id),
    };
  }

  suspended(query: SuspendedQuery): Promise<MessageHeader[]> {
    return this.store.controls.suspended(this.namespace, query);
  }

  async abort(ids: number[], user: string): Promise<ControlOutcome[]> {
    const messages = await this.checked(ids, 'abort', (m) => this.actionsOf(m).includes('abort'), abortRefusal);
    const hosts = this.director.running?.hosts;
    // Taken out of this node's queue first, so no job may start it while the store is changed.
    const abandoned = messages.filter((m) => hosts?.get(m.target)?.abandon(m.id) === true);
    const reason = `Aborted by ${user}`;
    const changed = new Set(await this.store.controls.abort(this.namespace, ids, reason));
    for (const message of abandoned) if (!changed.has(message.id)) hosts?.get(message.target)?.keep(message.id);
    return messages.map((message) => {
      if (!changed.has(message.id)) return { id: message.id, done: false, reason: 'it was taken or finished meanwhile' };
      this.logAbout(message, `Message ${message.id} aborted by ${user}: taken out of the queue of ${message.target}`);
      return { id: message.id, done: true, reason: null };
    });
  }

  async discard(ids: number[], user: string): Promise<ControlOutcome[]> {
    const messages = await this.checked(ids, 'discard', (m) => m.kind === 'request' && m.status === 'error', discardRefusal);
    const changed = new Set(await this.store.controls.discard(this.namespace, ids));
    return messages.map((message) => {
      if (!changed.has(message.id)) return { id: message.id, done: false, reason: 'it changed meanwhile' };
      this.logAbout(message, `Message ${message.id}${isSuspended(message) ? ' (suspended)' : ''} discarded by ${user}`);
      return { id: message.id, done: true, reason: null };
    });
  }

  async resend(ids: number[], user: string, target?: string): Promise<ResendOutcome[]> {
    const messages = await this.checked(
      ids,
      'resend',
      (m) => m.kind === 'request',
      () => 'it is a response; only requests can be resent',
    );
    this.requireTargets(messages.map((m) => target ?? m.target));
    return this.send(
      messages.map((original) => ({ original, target: target ?? original.target, body: original.body, edited: false })),
      user,
    );
  }

  async editAndResend(id: number, user: string, edit: EditedMessage): Promise<ResendOutcome> {
    const [original] = await this.checked([id], 'edit and resend', (m) => this.actionsOf(m).includes('edit-resend'), editRefusal);
    const target = edit.target ?? original!.target;
    this.requireTargets([target]);
    const body = testRequestBody(edit.classname ?? original!.body.classname, edit.body);
    if (body.encoding === 'json') assertJsonObjectText(body.data);
    await this.director.checkMessageFor(target, body, 'resend a message');
    const [outcome] = await this.send([{ original: original!, target, body, edited: true }], user);
    return outcome!;
  }

  /** Sends the copies (in the command order, like the other sends of an operator), then records the links in one write. */
  private async send(copies: Array<{ original: StoredMessage; target: string; body: StoredMessage['body']; edited: boolean }>, user: string) {
    const sent = await this.director.withRunning('resend a message', async (running) => {
      const results: Array<{ original: StoredMessage; target: string; edited: boolean; id: number }> = [];
      for (const copy of copies) {
        const message = await running.send({ source: copy.original.source, parentId: null, sessionId: null }, copy.target, copy.body, {
          responseRequired: false,
          description: `${copy.edited ? 'Edited and resent' : 'Resent'} from message ${copy.original.id}`,
        });
        await message.accepted;
        results.push({ original: copy.original, target: copy.target, edited: copy.edited, id: message.message.id });
      }
      return results;
    });
    const now = Date.now();
    const links: ResendLink[] = sent.map((s) => ({ resendId: s.id, originalId: s.original.id, target: s.target, edited: s.edited, user, createdAt: now }));
    await this.store.controls.recordResends(this.namespace, links);
    for (const s of sent) {
      const how = s.edited ? 'edited and resent' : 'resent';
      this.logAbout(s.original, `Message ${s.original.id} ${how} by ${user} as message ${s.id} to ${s.target}`);
    }
    return sent.map((s) => ({ id: s.original.id, resendId: s.id, target: s.target }));
  }

  private actionsOf(message: StoredMessage): MessageAction[] {
    if (message.kind !== 'request') return [];
    const actions: MessageAction[] = [];
    if (message.status === 'queued' && message.leaseOwner === null && !this.inHand(message)) actions.push('abort');
    if (message.status === 'error') actions.push('discard');
    actions.push('resend');
    if (message.body.encoding !== 'pickle') actions.push('edit-resend');
    return actions;
  }

  private inHand(message: MessageHeader): boolean {
    return this.director.running?.hosts.get(message.target)?.isHandling(message.id) ?? false;
  }

  /** Every message exists and allows the action, or nothing is done. */
  private async checked(
    ids: number[],
    action: string,
    allows: (message: StoredMessage) => boolean,
    refusal: (message: StoredMessage, inHand: boolean) => string,
  ): Promise<StoredMessage[]> {
    if (ids.length === 0) throw new ConveyorError('ERR_INVALID_INPUT', `Name at least one message to ${action}`);
    if (ids.length > maxMessagesPerAction)
      throw new ConveyorError('ERR_INVALID_INPUT', `At most ${maxMessagesPerAction} messages can be handled at once, not ${ids.length}`);
    if (new Set(ids).size !== ids.length) throw new ConveyorError('ERR_INVALID_INPUT', `A message id appears twice in the ${action}`);
    const messages: StoredMessage[] = [];
    for (const id of ids) {
      const message = await this.get(id);
      if (!allows(message)) {
        throw new ConveyorError('ERR_MESSAGE_STATE', `Cannot ${action} message ${id}: ${refusal(message, this.inHand(message))}; nothing was changed`);
      }
      messages.push(message);
    }
    return messages;
  }

  private async get(id: number): Promise<StoredMessage> {
    const message = await this.store.messages.get(this.namespace, id);
    if (!message) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `Message ${id} does not exist in namespace ${this.namespace}`);
    return message;
  }

  private requireTargets(targets: string[]): void {
    const running = this.director.running;
    if (!running || this.director.state !== 'running') {
      throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `No production is running in namespace ${this.namespace}: cannot resend a message`);
    }
    for (const target of new Set(targets)) {
      if (!running.hosts.has(target)) {
        throw new ConveyorError('ERR_ITEM_NOT_FOUND', `No item named '${target}' in production ${running.name}; nothing was resent`, {
          hint: `Known items: ${[...running.hosts.keys()].join(', ')}`,
        });
      }
    }
  }

  /** Items of the running production, or of the default one when none runs. */
  private async requireItem(item: string): Promise<void> {
    const running = this.director.running;
    const name = running?.name ?? (this.director.production || (await this.store.productions.getDefault(this.namespace)));
    const definition = running?.definition ?? (name ? (await this.store.productions.get(this.namespace, name))?.definition : undefined);
    if (!definition) throw new ConveyorError('ERR_NO_DEFAULT_PRODUCTION', `Namespace ${this.namespace} has no production to find item ${item} in`);
    if (!definition.items.some((candidate) => candidate.name === item)) {
      throw new ConveyorError('ERR_ITEM_NOT_FOUND', `No item named '${item}' in production ${definition.name}`, {
        hint: `Known items: ${definition.items.map((candidate) => candidate.name).join(', ')}`,
      });
    }
  }

  /** Here at once, on the other nodes by notification (each re-reads the store after missed ones). */
  private apply(item: string, suspended: boolean): void {
    this.director.running?.setQueueSuspended(item, suspended);
    this.director.tellOtherNodes({ type: 'queue', namespace: this.namespace, item, suspended });
  }

  private logAbout(message: MessageHeader, text: string): void {
    this.director.log.write('Info', text, { configName: message.target, messageId: message.id, sessionId: message.sessionId });
  }
}

function headerOf(message: StoredMessage): MessageHeader {
  const header: MessageHeader & { body?: unknown; traceParent?: unknown } = { ...message };
  delete header.body;
  delete header.traceParent;
  return header;
}

function abortRefusal(message: StoredMessage, inHand: boolean): string {
  if (message.kind !== 'request') return 'it is a response; only queued requests can be aborted';
  if (inHand || message.status === 'delivered') return 'a job is handling it now (or a node has claimed it)';
  return `it is ${message.status}, not queued`;
}

function discardRefusal(message: StoredMessage): string {
  if (message.kind !== 'request') return 'it is a response; only requests in error can be discarded';
  if (message.status === 'queued') return 'it is still queued (abort takes it out of its queue)';
  return `it is ${message.status}, not in error`;
}

function editRefusal(message: StoredMessage): string {
  if (message.kind !== 'request') return 'it is a response; only requests can be resent';
  return 'its body is a Python pickle, which cannot be edited as JSON (resend it as it is)';
}

/**
 * LISTEN/NOTIFY for waking idle nodes. LISTEN needs one long-lived session, so it gets a dedicated
 * `pg.Client` (never a pooled connection, which would be handed to other queries); NOTIFY goes
 * through the pool like any statement.
 *
 * The listening connection reconnects by itself, with a growing delay, and listens again on every
 * channel. Notifications sent while it was down are lost for good (PostgreSQL keeps none for absent
 * listeners), so after each reconnect every handler is called once with `null`: "you may have
 * missed something, look at the tables". Handlers must therefore treat a notification as a hint to
 * re-read, never as the data itself.
 *
 * Channels are scoped to the store's schema, so stores in different schemas of one database (tests,
 * or two clusters sharing a server) do not wake each other.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { ConveyorError } from '../../core/errors.ts';
import type { NotificationHandler } from '../store.ts';
import { toStoreError } from './postgres-context.ts';

export interface NotifierOptions {
  /** Connection settings of the dedicated listening client. */
  connection: pg.ClientConfig;
  /** Pool used to send notifications. */
  pool: pg.Pool;
  /** Prefix of every channel name (the store's schema). */
  scope: string;
  /** Called when the listening connection fails or a reconnect attempt fails. */
  onError?: (error: Error) => void;
  /** First reconnect delay (default 100 ms), doubled per failure up to `maxReconnectDelayMs` (default 5000). */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

/** PostgreSQL truncates identifiers to 63 bytes; longer channel names are replaced by a digest. */
const maxChannelBytes = 63;

export class PgNotifier {
  readonly #options: NotifierOptions;
  readonly #handlers = new Map<string, Set<NotificationHandler>>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #delayMs: number;
  #closed = false;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#delayMs = options.reconnectDelayMs ?? 100;
  }

  /** The channel's name in PostgreSQL. */
  channelName(channel: string): string {
    const full = `${this.#options.scope}:${channel}`;
    if (Buffer.byteLength(full) <= maxChannelBytes) return full;
    return `conveyor_${createHash('sha256').update(full).digest('hex').slice(0, 40)}`;
  }

  /** Starts listening; resolves once LISTEN is in force. The returned function stops this handler. */
  async subscribe(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    this.#assertOpen();
    const name = this.channelName(channel);
    let handlers = this.#handlers.get(name);
    const first = handlers === undefined;
    if (handlers === undefined) {
      handlers = new Set();
      this.#handlers.set(name, handlers);
    }
    handlers.add(handler);
    if (first) {
      try {
        const client = await this.#connect();
        await client.query(`LISTEN ${client.escapeIdentifier(name)}`);
      } catch (error) {
        handlers.delete(handler);
        if (handlers.size === 0) this.#handlers.delete(name);
        throw toStoreError(`listen on channel "${channel}"`, error);
      }
    }
    return () => this.#unsubscribe(name, handler);
  }

  /** Sends `payload` (at most ~8000 bytes) to every listener of `channel`, on every node. */
  async notify(channel: string, payload: string): Promise<void> {
    this.#assertOpen();
    try {
      await this.#options.pool.query({ name: 'conveyor-notify', text: 'SELECT pg_notify($1, $2)', values: [this.channelName(channel), payload] });
    } catch (error) {
      throw toStoreError(`notify channel "${channel}"`, error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnectTimer !== null) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    this.#handlers.clear();
    const client = this.#client ?? (await this.#connecting?.catch(() => null)) ?? null;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #unsubscribe(name: string, handler: NotificationHandler): Promise<void> {
    const handlers = this.#handlers.get(name);
    if (handlers === undefined || !handlers.delete(handler) || handlers.size > 0) return;
    this.#handlers.delete(name);
    const client = this.#client;
    // When disconnected there is nothing to undo: the next connection listens only on live channels.
    if (client !== null && !this.#closed) await client.query(`UNLISTEN ${client.escapeIdentifier(name)}`).catch(() => undefined);
  }

  #connect(): Promise<pg.Client> {
    if (this.#client !== null) return Promise.resolve(this.#client);
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #open(): Promise<pg.Client> {
    const client = new pg.Client({ ...this.#options.connection, keepAlive: true });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, null));
    client.on('notification', (message) => {
      const handlers = this.#handlers.get(message.channel);
      if (handlers !== undefined) for (const handler of [...handlers]) handler(message.payload ?? '');
    });
    try {
      await client.connect();
      for (const name of this.#handlers.keys()) await client.query(`LISTEN ${client.escapeIdentifier(name)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw closedError();
    }
    this.#client = client;
    return client;
  }

  #lost(client: pg.Client, error: Error | null): void {
    if (this.#client !== client) return;
    this.#client = null;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#options.onError?.(error ?? new Error('The LISTEN connection to PostgreSQL ended'));
    // With nobody listening there is nothing to restore: the next subscribe connects again.
    if (this.#handlers.size > 0) this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== null) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#connect().then(
        () => {
          this.#delayMs = this.#options.reconnectDelayMs ?? 100;
          for (const handlers of this.#handlers.values()) for (const handler of [...handlers]) handler(null);
        },
        (error: unknown) => {
          if (this.#closed) return;
          this.#options.onError?.(error instanceof Error ? error : new Error(String(error)));
          this.#delayMs = Math.min(this.#delayMs * 2, this.#options.maxReconnectDelayMs ?? 5000);
          this.#scheduleReconnect();
        },
      );
    }, this.#delayMs);
    // A pending reconnect must not keep the process alive on its own.
    this.#reconnectTimer.unref();
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError();
  }
}

function closedError(): ConveyorError {
  return new ConveyorError('ERR_STORE_CLOSED', 'The store is closed');
}

/**
 * For PostgreSQL tests only: where the test database is, and one throwaway schema per suite.
 *
 * `PG_URL` names the database (CI sets it, see .ci/run). Without it the suites are skipped and say
 * why; under CI (`CI=true`) a missing `PG_URL` fails instead, so CI can never pass by skipping.
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { describe, it } from 'vitest';

export const pgUrl = process.env['PG_URL'] ?? '';

/** `describe`, run only when PostgreSQL is configured. */
export function describePg(name: string, body: () => void): void {
  if (pgUrl !== '') {
    describe(name, body);
  } else if (process.env['CI'] === 'true') {
    describe(name, () => {
      it('needs PostgreSQL: PG_URL must be set under CI', () => {
        throw new Error('PG_URL is not set; CI must provide a PostgreSQL database (see .ci/run)');
      });
    });
  } else {
    describe.skip(`${name} (skipped: PG_URL is not set; e.g. PG_URL=postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test)`, body);
  }
}

/** A schema name no other test uses. */
export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs one statement on its own connection (to play a second node, or the database administrator). */
export async function adminQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Polls `check` until it returns true (no fixed sleeps in tests); fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A TCP relay in front of PostgreSQL that a test can cut and restore: a real network outage for
 * the connections that go through it, while the database itself (shared with other tests) stays up.
 */
export class TcpRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #target: { host: string; port: number };
  #port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
    this.#server = createServer((client) => {
      const upstream = connect(this.#target.port, this.#target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  /** Relays to the database of `PG_URL`. */
  static async start(): Promise<TcpRelay> {
    const url = new URL(pgUrl);
    const relay = new TcpRelay({ host: url.hostname, port: Number(url.port || 5432) });
    await relay.restore();
    return relay;
  }

  /** `PG_URL` with the relay's address. */
  get url(): string {
    const url = new URL(pgUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.#port);
    return url.toString();
  }

  /** Drops every relayed connection and refuses new ones. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /** Accepts connections again, on the same port. */
  restore(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        this.#port = (this.#server.address() as AddressInfo).port;
        resolve();
      });
    });
  }
}

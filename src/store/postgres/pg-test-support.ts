/**
 * For PostgreSQL tests only: where the test database is, and one throwaway schema per suite.
 *
 * `PG_URL` names the database (CI sets it, see .ci/run). Without it the suites are skipped and say
 * why; under CI (`CI=true`) a missing `PG_URL` fails instead, so CI can never pass by skipping.
 */
import { randomBytes } from 'node:crypto';
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

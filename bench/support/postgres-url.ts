/** The PostgreSQL database the PostgreSQL benches work against (PG_URL), and URLs derived from it. */

/** PG_URL; without it the bench says what to set and exits with code 2. */
export function requiredPgUrl(): string {
  const url = process.env['PG_URL'] ?? '';
  if (url === '') {
    console.error('Set PG_URL to a PostgreSQL database, e.g. postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test');
    process.exit(2);
  }
  return url;
}

/** `url` naming another database of the same server. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

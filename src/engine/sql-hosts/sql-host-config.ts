/**
 * The `sqlHosts` key of conveyor.yaml: per namespace, named read-only SQL connections that `<sql>`
 * in DTL transforms runs on. A value is a PostgreSQL URL (`postgres://` or `postgresql://`) or an
 * SQLite database file (a path, optionally written `sqlite:<path>`; relative to the home).
 *
 * ```yaml
 * sqlHosts:
 *   USER:
 *     default: data/reference.db
 *     billing: postgres://reader:secret@db.example/billing
 * ```
 */
import { isAbsolute, resolve } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';

export type SqlHostSpec = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** Namespace → connection name → where it connects. */
export type SqlHostsConfig = Record<string, Record<string, SqlHostSpec>>;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export function parseSqlHosts(value: unknown, home: string, source: string): SqlHostsConfig {
  const fail = (why: string): never => {
    throw new ConveyorError('ERR_CONFIG', `${source}: sqlHosts ${why}`, {
      hint: 'sqlHosts maps a namespace to its connections: { USER: { default: data/reference.db, billing: postgres://… } }',
    });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(`must map namespaces to connections, got ${JSON.stringify(value)}`);
  const config: SqlHostsConfig = {};
  for (const [namespace, connections] of Object.entries(value)) {
    if (connections === null || typeof connections !== 'object' || Array.isArray(connections)) {
      return fail(`.${namespace} must map connection names to a database, got ${JSON.stringify(connections)}`);
    }
    const hosts: Record<string, SqlHostSpec> = {};
    for (const [name, target] of Object.entries(connections as Record<string, unknown>)) {
      if (!NAME.test(name)) fail(`.${namespace}: ${JSON.stringify(name)} is not a connection name (letters, digits, _ . -)`);
      if (typeof target !== 'string' || target.trim() === '') return fail(`.${namespace}.${name} must be an SQLite file or a postgres:// URL`);
      hosts[name] = sqlHostSpec(target.trim(), home);
    }
    config[namespace] = hosts;
  }
  return config;
}

function sqlHostSpec(target: string, home: string): SqlHostSpec {
  if (/^postgres(ql)?:\/\//i.test(target)) return { kind: 'postgres', url: target };
  const path = target.replace(/^sqlite:/i, '');
  return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(home, path) };
}

/** What may be shown of a connection: never a password. */
export function describeSqlHost(spec: SqlHostSpec): string {
  if (spec.kind === 'sqlite') return `SQLite ${spec.path}`;
  try {
    const url = new URL(spec.url);
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return 'PostgreSQL (a URL that does not parse)';
  }
}

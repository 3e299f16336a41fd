/**
 * The state a bad input must not change, read through the API as the admin and from the home's
 * files: production status and default, the production list and definition, the items, the messages,
 * the lookup tables, schemas, transforms, class documents, users and the uploaded packages.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { production } from './baselines.ts';
import { rawCall } from './raw-http.ts';

export type Snapshot = Record<string, unknown>;

/** Files the server rewrites as it runs (database, its journal, logs, the socket) are not state a request owns. */
const runtimeFiles = /(\.db|\.db-wal|\.db-shm|\.sqlite.*|\.log|\.sock|\.lock|\.pid|__pycache__.*|\.pyc)$/;

function homeFiles(home: string): Record<string, number> {
  const files: Record<string, number> = {};
  for (const entry of readdirSync(home, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    const name = relative(home, full);
    if (!entry.isFile() || runtimeFiles.test(name) || name.includes('__pycache__') || name === 'users.json') continue;
    files[name] = statSync(full).size;
  }
  return files;
}

/** Item records without what changes on its own while a production runs (pids, counters, times). */
function stableItems(json: unknown): unknown {
  const items = (json as { items?: unknown[] } | undefined)?.items ?? json;
  if (!Array.isArray(items)) return json;
  return items.map((entry) => {
    const record = entry as Record<string, unknown>;
    return { name: record.name, enabled: record.enabled, state: record.state ?? record.status };
  });
}

export async function takeSnapshot(url: string, headers: Record<string, string>, home: string): Promise<Snapshot> {
  const get = async (path: string): Promise<unknown> => {
    const reply = await rawCall(url, { method: 'GET', path, headers });
    return reply.status === 200 ? reply.json : `HTTP ${reply.status}`;
  };
  const lookups = (await get('/api/iop/lookups')) as { tables?: string[] };
  const tables: Record<string, unknown> = {};
  for (const table of lookups.tables ?? []) tables[table] = await get(`/api/iop/lookups/${encodeURIComponent(table)}`);
  const messages = (await get('/api/iop/messages?limit=500')) as { messages?: Array<{ id: number }> };
  const ids = (messages.messages ?? []).map((message) => message.id);
  return {
    status: await get('/api/iop/status'),
    default: await get('/api/iop/default'),
    list: await get('/api/iop/list'),
    export: await get(`/api/iop/export?production=${encodeURIComponent(production)}`),
    items: stableItems(await get(`/api/iop/items?production=${encodeURIComponent(production)}`)),
    messages: { count: ids.length, newest: Math.max(0, ...ids) },
    lookups: tables,
    schemas: await get('/api/iop/schemas'),
    transforms: await get('/api/iop/transforms'),
    users: await get('/api/iop/users'),
    files: homeFiles(home),
  };
}

/** The parts of the state that differ, each as `part: before → after` (cut for the report). */
export function differences(before: Snapshot, after: Snapshot): string[] {
  const cut = (value: unknown) => {
    const text = JSON.stringify(value) ?? 'undefined';
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  };
  return Object.keys({ ...before, ...after })
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .map((key) => `${key}: ${cut(before[key])} → ${cut(after[key])}`);
}

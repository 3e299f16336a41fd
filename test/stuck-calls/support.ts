/**
 * What the stuck-call suite shares: a real server whose production holds components that never
 * answer (test/stuck-calls/fixtures), and liveness deadlines. A deadline is generous (many times
 * what the call needs): it checks that the call answers at all, not how fast.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childProcessIds } from '../../src/server/child-processes.ts';
import type { HttpReply, ServerProcess } from '../support/server-process.ts';
import { eventually } from '../support/temp-dir.ts';

export const fixtureSettings = fileURLToPath(new URL('./fixtures/settings.py', import.meta.url));

/** Resolves with the call's result, or fails the test when it has not answered by the deadline. */
export async function answersWithin<T>(deadlineMs: number, what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function errorOf(reply: HttpReply): string {
  return String((reply.json as { error?: unknown } | undefined)?.error ?? '');
}

/** Lines a fixture recorded (the Gate writes `record.txt` when it answers, `.entered` when it starts). */
export function recorded(dir: string, file: string): string[] {
  const path = join(dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** Waits until the Gate has taken the message with this text (it is then in flight). */
export function inFlight(dir: string, text: string): Promise<true> {
  return eventually(() => recorded(dir, 'record.txt.entered').includes(text) || undefined, `the Gate to take ${text}`, 30_000);
}

/** Event-log entries of the server's USER namespace since `sinceId`. */
export async function logSince(server: ServerProcess, sinceId: number): Promise<Array<{ id: number; type: string; config_name: string; text: string }>> {
  const reply = await server.local('GET', `/api/iop/log?since_id=${sinceId}&top=1000`);
  return reply.json as Array<{ id: number; type: string; config_name: string; text: string }>;
}

export async function lastLogId(server: ServerProcess): Promise<number> {
  const reply = await server.local('GET', '/api/iop/log?top=1');
  const [entry] = reply.json as Array<{ id: number }>;
  return entry?.id ?? 0;
}

/** The processes a server started (its Python workers), to check that none outlives it. */
export function workerIds(server: ServerProcess): number[] {
  return server.child.pid === undefined ? [] : childProcessIds(server.child.pid);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !existsSync(`/proc/${pid}/stat`) || !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

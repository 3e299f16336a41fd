/**
 * What docs/api.md promises for a bad input, held against the real reply:
 * - 401 with `WWW-Authenticate: Basic …` for missing or wrong credentials (or 429 with `Retry-After`
 *   once a user name or address has failed too often, docs/errors.md), 403 for a role too low,
 *   400 for a body that is not JSON, 413 for a body over the limit ("Outside both rules");
 * - 400 for a request the route's own declaration rejects, on every route;
 * - otherwise a refusal: HTTP 500 on a spec route (spec "Errors" rule 1), 400 / 404 / 409 on the
 *   others ("Errors of beyond-spec routes"); the class-document compile reports errors inside a 200
 *   (`status.errors`), as the real client reads them, and the transform compile and run routes report
 *   invalid transforms inside a 200 (`ok: false`, `status: "error"`, docs/dtl.md), and the rule compile
 *   route invalid rule classes (`ok: false`, docs/rules.md);
 * - a path segment over 100 characters: 414;
 * - always a JSON body whose `error` reads `ERROR #<CODE>: <text>` with `code` = `ERR_<CODE>`, and never a
 *   stack trace or a server path.
 */
import type { BadCase } from './bad-cases.ts';
import type { RawReply } from './raw-http.ts';

/** The spec's routes (shared/spec "Routes"): every failure is HTTP 500 {"error": text}. */
const specRoutes = new Set(
  [
    'GET version',
    'GET status',
    'POST start',
    'POST stop',
    'POST kill',
    'POST restart',
    'POST update',
    'GET list',
    'GET default',
    'PUT default',
    'GET log',
    'GET export',
    'POST test',
    'PUT migrate',
  ].map((route) => {
    const [method, name] = route.split(' ');
    return `${method} /api/iop/${name}`;
  }),
);

export function isSpecRoute(method: string, template: string): boolean {
  return specRoutes.has(`${method} ${template}`);
}

/** Routes whose documented reply to a bad input is a 200 that carries the errors. */
const inBandErrors: Record<string, (json: unknown) => boolean> = {
  'POST /api/iop/transforms/compile': (json) => (json as { ok?: unknown } | undefined)?.ok === false,
  'POST /api/iop/transforms/run': (json) => (json as { status?: unknown } | undefined)?.status === 'error',
  'POST /api/iop/rules/compile': (json) => (json as { ok?: unknown } | undefined)?.ok === false,
  'POST /api/atelier/v1/{namespace}/action/compile': (json) => {
    const errors = (json as { status?: { errors?: unknown[] } } | undefined)?.status?.errors;
    return Array.isArray(errors) && errors.length > 0;
  },
};

const beyondSpecRefusals = [400, 404, 409];

/** Every error text reads like the platform's status strings, and `code` is the code it names (docs/api.md). */
const errorText = /^ERROR #[A-Z0-9_]+: \S/;

/**
 * A request the route's declaration rejects: 400 on every route, spec routes too ("Requests are checked
 * against the route's declaration", docs/api.md); only what fails after the check is the spec's 500.
 */
const invalidStatus = { spec: [400], beyondSpec: [400] };

export interface LeakMarkers {
  /** Server-side paths that must never appear in a reply (the home, the repository). */
  paths: string[];
}

function leaks(text: string, markers: LeakMarkers): string[] {
  const found: string[] = [];
  for (const path of markers.paths) if (path && text.includes(path)) found.push(`the server path ${path}`);
  if (text.includes('node_modules')) found.push('node_modules');
  if (/\.ts:\d*/.test(text)) found.push('a .ts: source position');
  if (/\n\s+at [^\n]+:\d+:\d+/.test(text) || /\bat [\w.<>]+ \([^)]*:\d+:\d+\)/.test(text)) found.push('a JavaScript stack trace');
  if (text.includes('Traceback (most recent call last)')) found.push('a Python traceback');
  return found;
}

function statusProblem(badCase: BadCase, reply: RawReply): string | null {
  const spec = isSpecRoute(badCase.route.method, badCase.route.template);
  const exact: Record<string, number> = { unauthenticated: 401, forbidden: 403, 'not-json': 400, 'too-large': 413, 'path-too-long': 414 };
  const wanted = exact[badCase.expect];
  if (wanted !== undefined) {
    // Repeated failed logins may be throttled: 429 with Retry-After (ERR_AUTH_THROTTLED, docs/errors.md).
    if (badCase.expect === 'unauthenticated' && reply.status === 429) return reply.headers['retry-after'] === undefined ? '429 without Retry-After' : null;
    if (reply.status !== wanted) return `answered ${reply.status}, the docs promise ${wanted}`;
    if (badCase.expect === 'unauthenticated' && !/^Basic /i.test(String(reply.headers['www-authenticate'] ?? ''))) return '401 without WWW-Authenticate: Basic';
    return null;
  }
  if (badCase.expect === 'harmless') {
    if (reply.status >= 500 && !(spec && reply.status === 500)) return `answered ${reply.status} to a value it may accept or refuse`;
    return null;
  }
  const inBand = inBandErrors[`${badCase.route.method} ${badCase.route.template}`];
  if (inBand && reply.status === 200) return inBand(reply.json) ? null : 'answered 200 without reporting an error';
  if (badCase.expect === 'invalid') {
    const allowed = spec ? invalidStatus.spec : invalidStatus.beyondSpec;
    return allowed.includes(reply.status) ? null : `answered ${reply.status} to a request its own schema rejects; the docs promise ${allowed.join(' or ')}`;
  }
  if (spec) return reply.status === 500 ? null : `answered ${reply.status}, the spec promises 500 {"error"} for every failure of a spec route`;
  return beyondSpecRefusals.includes(reply.status)
    ? null
    : `answered ${reply.status}, the docs promise 400 (bad input), 404 (unknown) or 409 (not running / busy)`;
}

/** The problems of a reply to a bad case; empty when it was handled as documented. */
export function judge(badCase: BadCase, reply: RawReply, markers: LeakMarkers): string[] {
  const problems: string[] = [];
  const status = statusProblem(badCase, reply);
  if (status) problems.push(status);
  if (reply.status >= 400) {
    if (!/^application\/json/.test(String(reply.headers['content-type'] ?? '')))
      problems.push(`content type ${String(reply.headers['content-type'])}, not JSON`);
    const { error, code } = (reply.json ?? {}) as { error?: unknown; code?: unknown };
    if (typeof error !== 'string' || error.trim() === '') problems.push('no non-empty string `error` in the body');
    else if (!errorText.test(error)) problems.push('an `error` text that does not start with `ERROR #<CODE>: `');
    else if (typeof code !== 'string' || `ERROR #${code.replace(/^ERR_/, '')}:` !== error.slice(0, error.indexOf(':') + 1))
      problems.push(`a \`code\` (${String(code)}) that is not the one the text names`);
  }
  // A successful reply may carry stored data that mentions paths (an event-log entry, a message body);
  // what must never carry them is a reply the server wrote about a failure.
  if (reply.status >= 300) for (const leak of leaks(reply.text, markers)) problems.push(`the reply shows ${leak}`);
  return problems;
}

/** A short excerpt of a reply for the findings (no more than a line). */
export function excerpt(reply: RawReply): string {
  const text = reply.text.replace(/\s+/g, ' ');
  return `${reply.status} ${text.length > 240 ? `${text.slice(0, 240)}…` : text}`;
}

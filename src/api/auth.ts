/**
 * HTTP Basic authentication and roles. Every route that declares a role (all API routes do) needs
 * credentials of a user of the UserDirectory; requests that arrived over the home's Unix socket are
 * trusted as a local admin, because the socket's file permissions already restrict who can connect.
 *
 * scrypt is deliberately slow, and the real client authenticates every call (its log tail polls once a
 * second), so a successful check is remembered for a minute under a keyed hash of the header.
 *
 * Failed checks are throttled per user name and per client address (login-throttle.ts): past the
 * allowed failures a request is answered 429 with Retry-After before any password check runs. A
 * remembered success is not a guess and is never throttled; the local socket has no password at all.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-replies.ts';
import { LoginThrottle, type LoginThrottleLimits, type Refusal } from './login-throttle.ts';
import { routeConfig } from './route-catalog.ts';
import { roleAllows, type AuthenticatedUser, type UserDirectory } from './users.ts';

const localRequests = new WeakSet<IncomingMessage>();
export const localUser: AuthenticatedUser = { name: 'local', role: 'admin' };

/** Marks a raw request as having come over the local control socket. */
export function markLocal(raw: IncomingMessage): void {
  localRequests.add(raw);
}

export function isLocal(raw: IncomingMessage): boolean {
  return localRequests.has(raw);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user of an API route (undefined on routes that declare no role). */
    user?: AuthenticatedUser;
  }
}

interface CachedVerification {
  user: AuthenticatedUser;
  generation: number;
  expires: number;
}

const cacheTtlMs = 60_000;
const cacheLimit = 1000;
/**
 * scrypt runs on libuv's small thread pool, which file I/O shares: a flood of wrong passwords must not
 * starve the rest of the server, so verifications run at most two at a time and the others wait.
 */
const maxConcurrentVerifications = 2;

export function parseBasic(header: string | undefined): { name: string; password: string } | null {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]*)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function challenge(reply: FastifyReply, text: string): FastifyReply {
  reply.header('WWW-Authenticate', 'Basic realm="Conveyor", charset="UTF-8"');
  return sendError(reply, 401, { error: text, code: 'ERR_AUTH' });
}

function throttled(reply: FastifyReply, refusal: Refusal): FastifyReply {
  reply.header('Retry-After', String(refusal.retryAfterSeconds));
  return sendError(reply, 429, {
    error: `Too many failed logins for ${refusal.subject}: try again in ${refusal.retryAfterSeconds} s`,
    code: 'ERR_AUTH_THROTTLED',
  });
}

type Authentication = { user: AuthenticatedUser } | { refusal: Refusal } | null;

export function installAuth(app: FastifyInstance, users: UserDirectory, throttleLimits: Partial<LoginThrottleLimits> = {}): void {
  const cacheKey = randomBytes(32);
  const cache = new Map<string, CachedVerification>();
  const throttle = new LoginThrottle(throttleLimits);
  let verifying = 0;
  const waiting: Array<() => void> = [];

  async function verifyLimited(name: string, password: string, address: string): Promise<Authentication> {
    if (verifying >= maxConcurrentVerifications) await new Promise<void>((resolve) => waiting.push(resolve));
    verifying++;
    try {
      // Checked again after the wait: a burst of parallel guesses must not all get a password check.
      const refusal = throttle.refusal(name, address);
      if (refusal) return { refusal };
      const user = await users.verify(name, password);
      if (user) throttle.succeeded(name, address);
      else throttle.failed(name, address);
      return user ? { user } : null;
    } finally {
      verifying--;
      waiting.shift()?.();
    }
  }

  async function authenticate(header: string, address: string): Promise<Authentication> {
    // A password changed in the file by another process (`conveyor users reset-password`) bumps the
    // generation, so a verification cached for the old password is not accepted again.
    await users.reloadIfChanged();
    const key = createHmac('sha256', cacheKey).update(header).digest('base64');
    const cached = cache.get(key);
    if (cached && cached.generation === users.generation && cached.expires > Date.now()) {
      // The right password again: a success like any other, it clears the failure counts.
      throttle.succeeded(cached.user.name, address);
      return { user: cached.user };
    }
    const credentials = parseBasic(header);
    // No name is no guess (the IoP client sends `Basic Og==` when no user is set): no user has an
    // empty name, so it is refused without a password check and not counted against the address.
    if (!credentials || credentials.name === '') return null;
    const refusal = throttle.refusal(credentials.name, address);
    if (refusal) return { refusal };
    const outcome = await verifyLimited(credentials.name, credentials.password, address);
    if (outcome && 'user' in outcome) {
      if (cache.size >= cacheLimit) cache.clear();
      cache.set(key, { user: outcome.user, generation: users.generation, expires: Date.now() + cacheTtlMs });
    }
    return outcome;
  }

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const needed = routeConfig(request).role;
    if (needed === undefined) return;
    let user: AuthenticatedUser | null;
    if (isLocal(request.raw)) {
      user = localUser;
    } else {
      const header = request.headers.authorization;
      if (!header) return challenge(reply, 'Authentication required: send the user name and password of a Conveyor user (HTTP Basic)');
      const outcome = await authenticate(header, request.ip);
      if (outcome && 'refusal' in outcome) return throttled(reply, outcome.refusal);
      if (!outcome) return challenge(reply, 'Wrong user name or password');
      user = outcome.user;
      // Checked after the password, so a disabled account tells nothing to someone guessing.
      if (users.isDisabled(user.name)) return challenge(reply, `User ${user.name} is disabled: an admin can enable it again (portal Users page)`);
    }
    request.user = user;
    if (!roleAllows(user.role, needed)) {
      return sendError(reply, 403, { error: `User ${user.name} has the role ${user.role}; this operation needs the role ${needed}`, code: 'ERR_FORBIDDEN' });
    }
  });
}

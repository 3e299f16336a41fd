/**
 * Cross-origin requests. Browsers attach Basic credentials they cached for this server to requests
 * other sites make, so a request whose `Origin` is neither this server nor a configured CORS origin is
 * refused (403) before anything runs: that closes cross-site request forgery. Clients that are not
 * browsers (the CLIs, curl) send no Origin and are not concerned. Configured origins (IoP's server
 * had CORS on) get CORS headers and answered preflights; `*` allows any origin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-replies.ts';

function sameOrigin(request: FastifyRequest, origin: string): boolean {
  return origin === `${request.protocol}://${request.host}`;
}

export function installCrossOrigin(app: FastifyInstance, allowedOrigins: string[]): void {
  const anyOrigin = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins.map((origin) => origin.replace(/\/+$/, '')));

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined || sameOrigin(request, origin)) return;
    if (!anyOrigin && !allowed.has(origin)) {
      return sendError(reply, 403, {
        error: `Cross-origin request from ${origin} refused; allow it with the server option corsOrigins`,
        code: 'ERR_FORBIDDEN',
      });
    }
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Allow-Credentials', 'true');
    reply.header('Vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      reply.header('Access-Control-Max-Age', '600');
      return reply.code(204).send();
    }
  });
}

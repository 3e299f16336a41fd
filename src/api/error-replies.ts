/**
 * How failures reach a client. Spec routes answer every failure with HTTP 500 and `{"error": text}`
 * (spec "Errors" rule 1); beyond-spec routes use the status of the ConveyorError code. Transport-level
 * refusals keep their own status: 401, 403, 404, 413, 400/415 for bodies that are not JSON. Every
 * error body is JSON and no stack trace ever leaves the server (it goes to the server log).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorText, isConveyorError } from '../core/errors.ts';
import { routeConfig } from './route-catalog.ts';

export interface ErrorBody {
  error: string;
  code?: string;
}

export function sendError(reply: FastifyReply, status: number, body: ErrorBody): FastifyReply {
  // The real IoP server's status line reads "500 Error"; its client prints the reason phrase.
  if (status === 500) reply.raw.statusMessage = 'Error';
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

function transportError(error: FastifyError, limits: ErrorLimits, spec: boolean): { status: number; text: string } | null {
  switch (error.code) {
    case 'FST_ERR_HANDLER_TIMEOUT':
      return { status: spec ? 500 : 504, text: `The server did not finish the request within ${limits.requestTimeoutMs ?? 'the allowed'} ms; the operation may still complete, check its status` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, text: `The request body is larger than the limit of ${limits.bodyLimit} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, text: 'The request body must be JSON (Content-Type: application/json)' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, text: 'The Content-Length header does not match the body' };
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'ERR_API_BODY_NOT_JSON') {
    return { status: 400, text: `The request body is not valid JSON: ${error.message}` };
  }
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, text: error.message };
  return null;
}

interface ErrorLimits {
  bodyLimit: number;
  requestTimeoutMs?: number;
  apiPrefix: string;
}

export function installErrorReplies(app: FastifyInstance, limits: ErrorLimits): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const spec = routeConfig(request).spec === true;
    if (isConveyorError(error)) {
      const text = error.hint ? `${error.message} (${error.hint})` : error.message;
      request.log.info({ code: error.code, err: error.message }, 'request failed');
      return sendError(reply, spec ? 500 : error.status, { error: text, code: error.code });
    }
    const transport = transportError(error, limits, spec);
    if (transport) return sendError(reply, transport.status, { error: transport.text });
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, 500, { error: `Internal error: ${errorText(error)}`, code: 'ERR_INTERNAL' });
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 404, { error: `No route ${request.method} ${request.url.split('?')[0]}: see GET ${limits.apiPrefix}/openapi.json for the routes` });
  });
}

/**
 * JSON bodies: an empty body reads as "no body" (POST routes accept it alike), and any content type
 * is tried as JSON, so `curl -d '{...}'` without a header works; what does not parse is a 400.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (_request: FastifyRequest, text: string | Buffer, done: (error: Error | null, body?: unknown) => void): void => {
    const source = typeof text === 'string' ? text : text.toString('utf8');
    if (source.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(source));
    } catch (error) {
      const failure = error as Error & { code?: string; statusCode?: number };
      failure.code = 'ERR_API_BODY_NOT_JSON';
      failure.statusCode = 400;
      done(failure);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);
}

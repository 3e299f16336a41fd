/**
 * How failures reach a client. Spec routes answer every failure with HTTP 500 and `{"error": text}`
 * (spec "Errors" rule 1); beyond-spec routes use the status of the ConveyorError code. Transport-level
 * refusals keep their own status: 401, 403, 404, 413, 429, 400/415 for bodies that are not JSON.
 *
 * Every error body is JSON `{error, code}`: `error` reads like the platform's status strings,
 * `ERROR #ITEM_NOT_FOUND: No item …` (core/status-text.ts), `code` is the registry's stable code. No
 * reply carries a stack trace or a path of the server (api/reply-text.ts); what was left out of a
 * reply goes to the server log in full.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorCodes, errorText, isConveyorError, type ErrorCode } from '../core/errors.ts';
import { statusText } from '../core/status-text.ts';
import { fileSystemFailure, publicText } from './reply-text.ts';
import { routeConfig } from './route-catalog.ts';

export interface ErrorBody {
  /** The message; sendError makes it a status text (`ERROR #CODE: …`) without server paths. */
  error: string;
  code: ErrorCode;
}

export function sendError(reply: FastifyReply, status: number, body: ErrorBody): FastifyReply {
  // The real IoP server's status line reads "500 Error"; its client prints the reason phrase.
  if (status === 500) reply.raw.statusMessage = 'Error';
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: statusText(body.code, publicText(body.error)), code: body.code });
}

interface TransportFailure {
  status: number;
  code: ErrorCode;
  text: string;
}

function transportError(error: FastifyError, limits: ErrorLimits, spec: boolean): TransportFailure | null {
  switch (error.code) {
    case 'FST_ERR_HANDLER_TIMEOUT':
      return {
        status: spec ? 500 : 504,
        code: 'ERR_TIMEOUT',
        text: `The server did not finish the request within ${limits.requestTimeoutMs ?? 'the allowed'} ms; the operation may still complete, check its status`,
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'ERR_BODY_TOO_LARGE', text: `The request body is larger than the limit of ${limits.bodyLimit} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'ERR_INVALID_INPUT', text: 'The request body must be JSON (Content-Type: application/json)' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'ERR_INVALID_INPUT', text: 'The Content-Length header does not match the body' };
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'ERR_API_BODY_NOT_JSON') {
    return { status: 400, code: 'ERR_BODY_NOT_JSON', text: `The request body is not valid JSON: ${error.message}` };
  }
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const known = typeof error.code === 'string' && Object.hasOwn(errorCodes, error.code) ? (error.code as ErrorCode) : null;
    return { status, code: known ?? (status === 404 ? 'ERR_ROUTE_NOT_FOUND' : 'ERR_INVALID_INPUT'), text: error.message };
  }
  return null;
}

/** An unexpected failure, said without its path; a name too long for the file system is the caller's input. */
function unexpected(error: Error): { code: ErrorCode; text: string } {
  const fileSystem = fileSystemFailure(error);
  if (fileSystem && (error as NodeJS.ErrnoException).code === 'ENAMETOOLONG') {
    return { code: 'ERR_INVALID_INPUT', text: `A name is too long for the server's file system: ${fileSystem}` };
  }
  return { code: 'ERR_INTERNAL', text: `Internal error: ${fileSystem ?? errorText(error)}` };
}

interface ErrorLimits {
  bodyLimit: number;
  requestTimeoutMs?: number;
  apiPrefix: string;
}

/**
 * Failures of Fastify's router, before any route is chosen (a malformed URL, a path parameter over
 * `maxParamLength`): the same JSON error body as every other refusal, without echoing the path.
 */
export function frameworkErrorReply(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const text =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A name in the URL path is longer than this server accepts'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'The URL is malformed'
        : 'The request cannot be routed';
  void sendError(reply, error.statusCode ?? 400, { error: text, code: 'ERR_INVALID_INPUT' });
}

function errorStatus(code: ErrorCode): number {
  return errorCodes[code].status;
}

export function installErrorReplies(app: FastifyInstance, limits: ErrorLimits): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const spec = routeConfig(request).spec === true;
    if (isConveyorError(error)) {
      // The message is cleaned before the hint is added, so the note on a left-out traceback reads in place.
      const message = publicText(error.message);
      const text = error.hint ? `${message} (${error.hint})` : message;
      // Expected failures are routine; one whose reply had to leave something out is logged in full.
      if (message === error.message) request.log.info({ code: error.code, err: error.message }, 'request failed');
      else request.log.warn({ code: error.code, err: error.message }, 'request failed (the reply leaves out paths or a traceback)');
      return sendError(reply, spec ? 500 : error.status, { error: text, code: error.code });
    }
    const transport = transportError(error, limits, spec);
    if (transport) return sendError(reply, transport.status, { error: transport.text, code: transport.code });
    request.log.error({ err: error }, 'unexpected error');
    const failure = unexpected(error);
    return sendError(reply, spec ? 500 : errorStatus(failure.code), { error: failure.text, code: failure.code });
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 404, {
      error: `No route ${request.method} ${request.url.split('?')[0]}: see GET ${limits.apiPrefix}/openapi.json for the routes`,
      code: 'ERR_ROUTE_NOT_FOUND',
    });
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

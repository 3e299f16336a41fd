/**
 * One registry of stable error codes. Every error a user can meet is a ConveyorError with a code
 * from this table, a message a person can act on and, where useful, a hint. The HTTP layer maps
 * `status` for routes outside the spec; spec routes always answer 500 (spec "Errors" rule 1).
 */
export const errorCodes = {
  ERR_NAMESPACE_UNKNOWN: { status: 404, summary: 'The namespace does not exist' },
  ERR_PRODUCTION_NOT_FOUND: { status: 404, summary: 'No production with that name exists in the namespace' },
  ERR_PRODUCTION_RUNNING: { status: 409, summary: 'Another production is already running in the namespace' },
  ERR_PRODUCTION_NOT_RUNNING: { status: 409, summary: 'The operation needs a running production' },
  ERR_PRODUCTION_BUSY: { status: 409, summary: 'The production is starting or stopping' },
  ERR_NO_DEFAULT_PRODUCTION: { status: 404, summary: 'No production was named and the namespace has no default' },
  ERR_ITEM_NOT_FOUND: { status: 404, summary: 'No item with that config name exists in the production' },
  ERR_ITEM_NOT_RUNNING: { status: 409, summary: 'The item is disabled, stopped or in error' },
  ERR_CLASS_NOT_FOUND: { status: 404, summary: 'No component class is registered under that name' },
  ERR_MESSAGE_NOT_FOUND: { status: 404, summary: 'No message with that id exists' },
  ERR_TIMEOUT: { status: 504, summary: 'A synchronous call did not answer in time' },
  ERR_COMPONENT_FAILED: { status: 500, summary: 'A component raised an error while handling a message' },
  ERR_BRIDGE: { status: 500, summary: 'A Python worker failed or broke the protocol' },
  ERR_MIGRATION: { status: 400, summary: 'The settings.py migration failed' },
  ERR_INVALID_INPUT: { status: 400, summary: 'The request is malformed or a value is out of range' },
  ERR_BODY_NOT_JSON: { status: 400, summary: 'The request body is not valid JSON' },
  ERR_BODY_TOO_LARGE: { status: 413, summary: 'The request body is larger than the configured limit' },
  ERR_ROUTE_NOT_FOUND: { status: 404, summary: 'No route answers that method and path' },
  ERR_UNSAFE_PATH: { status: 400, summary: 'A file name is absolute, contains .. or leaves its folder' },
  ERR_STORE: { status: 500, summary: 'The store failed to read or write' },
  ERR_STORE_CLOSED: { status: 503, summary: 'The store is closed' },
  ERR_STORE_UNAVAILABLE: { status: 503, summary: 'The database cannot be reached' },
  ERR_HOME_LOCKED: { status: 409, summary: 'Another server already runs on this home' },
  ERR_HOME_UNSAFE: { status: 500, summary: 'Other users can write the home; the server refuses to serve it' },
  ERR_CONFIG: { status: 400, summary: 'The configuration file or an option is invalid' },
  ERR_DTL: { status: 400, summary: 'A DTL transform failed to parse, compile or run' },
  ERR_SCHEMA_NOT_FOUND: { status: 404, summary: 'No schema with that name exists' },
  ERR_TRANSFORM_NOT_FOUND: { status: 404, summary: 'No transform with that name exists' },
  ERR_LOOKUP_NOT_FOUND: { status: 404, summary: 'No lookup table with that name exists' },
  ERR_AUTH: { status: 401, summary: 'Missing or wrong credentials' },
  ERR_AUTH_THROTTLED: { status: 429, summary: 'Too many failed logins for the user or from the address; retry after the time given' },
  ERR_FORBIDDEN: { status: 403, summary: 'The user lacks the role for this operation' },
  ERR_INTERNAL: { status: 500, summary: 'An unexpected internal error' },
  ERR_NOT_AVAILABLE: { status: 501, summary: 'This server does not offer the operation (the engine lacks the service)' },
  ERR_UNREACHABLE: { status: 503, summary: 'The client could not reach the server (refused, unknown host, timeout)' },
  ERR_TLS: { status: 502, summary: 'The TLS handshake with the server failed (certificate not trusted)' },
  ERR_SERVER: { status: 502, summary: 'The server answered a client request with an error' },
  ERR_USAGE: { status: 400, summary: 'The command line is malformed (unknown option, missing value, two actions)' },
} as const;

export type ErrorCode = keyof typeof errorCodes;

export class ConveyorError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: { hint?: string; details?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConveyorError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

/** Checks the code rather than `instanceof`, which fails across module copies and realms. */
export function isConveyorError(error: unknown, code?: ErrorCode): error is ConveyorError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { code?: unknown; name?: unknown };
  if (candidate.name !== 'ConveyorError' || typeof candidate.code !== 'string') return false;
  return code === undefined || candidate.code === code;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

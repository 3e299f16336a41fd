/**
 * One registry of stable error codes. Every error a user can meet is a ConveyorError with a code
 * from this table, a message a person can act on and, where useful, a hint. The HTTP layer maps
 * `status` for routes outside the spec; spec routes always answer 500 (spec "Errors" rule 1).
 * docs/errors.md is generated from this table (`npm run docs:errors`), so each code says here what it
 * means (`summary`) and what the user should do about it (`action`).
 */
interface ErrorCodeInfo {
  status: number;
  summary: string;
  action: string;
}

export const errorCodes = {
  ERR_NAMESPACE_UNKNOWN: {
    status: 404,
    summary: 'The namespace does not exist',
    action:
      'Check the spelling (names are case-sensitive; the default is USER). Namespaces other than USER are created at server start from the `namespaces` setting.',
  },
  ERR_PRODUCTION_NOT_FOUND: {
    status: 404,
    summary: 'No production with that name exists in the namespace',
    action: 'List the productions (`cli -l`, GET /list) and use one of those names, or migrate the package that defines it (`cli -m settings.py`).',
  },
  ERR_PRODUCTION_RUNNING: {
    status: 409,
    summary: 'Another production is already running in the namespace',
    action: 'Stop the running production first (`cli -S`, POST /stop): one production runs per namespace.',
  },
  ERR_PRODUCTION_NOT_RUNNING: {
    status: 409,
    summary: 'The operation needs a running production',
    action: 'Start the production (`cli -s <name>`, POST /start), then repeat the operation.',
  },
  ERR_PRODUCTION_BUSY: {
    status: 409,
    summary: 'The production is starting or stopping',
    action: 'Wait until the start or stop under way finishes (GET /status), then retry.',
  },
  ERR_NO_DEFAULT_PRODUCTION: {
    status: 404,
    summary: 'No production was named and the namespace has no default',
    action: 'Name the production, or set a default (`cli -d <name>`, PUT /default).',
  },
  ERR_ITEM_NOT_FOUND: {
    status: 404,
    summary: 'No item with that config name exists in the production',
    action: 'Use an item config name of the production (GET /export lists the items).',
  },
  ERR_ITEM_NOT_RUNNING: {
    status: 409,
    summary: 'The item is disabled, stopped or in error',
    action: 'Enable or start the item (POST /component/start) or restart the production; the event log (`cli -L`) tells why it stopped.',
  },
  ERR_CLASS_NOT_FOUND: {
    status: 404,
    summary: 'No component class is registered under that name',
    action: 'Register the class by migrating its package (`cli -m settings.py`), or correct the class name in the production or the request.',
  },
  ERR_CLASS_IN_USE: {
    status: 409,
    summary: 'The component class is used by production items',
    action: 'Remove or change the items the text names (or their productions), then unbind the class.',
  },
  ERR_CHANGE_BLOCKED: {
    status: 409,
    summary: 'The change plan holds destructive operations',
    action: 'Review the plan (POST /production/plan, `cli --plan`); apply it with allow_destructive (`--allow-destructive`) if the deletions are intended.',
  },
  ERR_DEFINITION_CHANGED: {
    status: 409,
    summary: 'The stored production changed since the plan was made',
    action: 'Make the plan again against the stored production, review it, and apply that one.',
  },
  ERR_NO_PREVIOUS_DEFINITION: {
    status: 404,
    summary: 'No applied change of this production is recorded',
    action:
      'Rollback restores the definition replaced by the last apply (POST /production/apply, `cli --apply-plan`); a migration or a direct edit keeps none.',
  },
  ERR_MESSAGE_NOT_FOUND: {
    status: 404,
    summary: 'No message with that id exists',
    action: "Check the message id (the portal's message list and the event log show ids) and the namespace.",
  },
  ERR_MESSAGE_STATE: {
    status: 409,
    summary: 'The message is not in a state that allows this action',
    action:
      'Abort takes only a request still waiting in its queue; discard only a request in error (suspended or not); a request a job is handling must finish first. Reload the message to see its status (docs/operations.md).',
  },
  ERR_TIMEOUT: {
    status: 504,
    summary: 'A synchronous call did not answer in time',
    action:
      'Find why the component is slow or stuck (its log, the event log); raise the timeout only when the work really takes that long. The call may still complete.',
  },
  ERR_COMPONENT_FAILED: {
    status: 500,
    summary: 'A component raised an error while handling a message',
    action: "Read the error text and the event log: the component's own code raised it. Fix the component or the message it was given.",
  },
  ERR_BRIDGE: {
    status: 500,
    summary: 'A Python worker failed or broke the protocol',
    action:
      "Check that python3 runs and that the component's module imports cleanly; the server log has the worker's stderr. A worker that crashed is restarted.",
  },
  ERR_MIGRATION: {
    status: 400,
    summary: 'The settings.py migration failed',
    action: 'Fix settings.py (or the file the error names) and migrate again; a failed migration leaves the previous package in place.',
  },
  ERR_INVALID_INPUT: {
    status: 400,
    summary: 'The request is malformed or a value is out of range',
    action: 'Correct the request: the text names the field and the accepted values (docs/api.md, GET /openapi.json).',
  },
  ERR_BODY_NOT_JSON: {
    status: 400,
    summary: 'The request body is not valid JSON',
    action: 'Send a JSON body (any content type is read as JSON); check quoting when it is built in a shell.',
  },
  ERR_BODY_TOO_LARGE: {
    status: 413,
    summary: 'The request body is larger than the configured limit',
    action: 'Send a smaller body, or raise `bodyLimit` (CONVEYOR_BODY_LIMIT) on the server.',
  },
  ERR_ROUTE_NOT_FOUND: {
    status: 404,
    summary: 'No route answers that method and path',
    action: 'Check the method, the path and the API prefix (docs/api.md, GET /openapi.json).',
  },
  ERR_UNSAFE_PATH: {
    status: 400,
    summary: 'A file name is absolute, contains .. or leaves its folder',
    action:
      'Use relative file names inside the package (no absolute names, no `..`, no links leading out); a remote folder must lie inside an allowed root (`allowedRoots`); a schema file the server reads must lie in `<home>/imports` or an allowed root.',
  },
  ERR_STORE: {
    status: 500,
    summary: 'The store failed to read or write',
    action: 'Read the cause in the text (disk full, permissions, a damaged database file), fix it and retry.',
  },
  ERR_STORE_CLOSED: { status: 503, summary: 'The store is closed', action: 'The server is shutting down: retry once it has restarted.' },
  ERR_STORE_UNAVAILABLE: {
    status: 503,
    summary: 'The database cannot be reached',
    action: 'Check that PostgreSQL runs and that the database URL, credentials and network are right; retry when it is back.',
  },
  ERR_HOME_LOCKED: {
    status: 409,
    summary: 'Another server already runs on this home',
    action: 'Use the server already running on this home, stop it first, or start this one with another home (CONVEYOR_HOME).',
  },
  ERR_HOME_UNSAFE: {
    status: 500,
    summary: 'Other users can write the home; the server refuses to serve it',
    action: 'Remove write access for group and others from the home (`chmod go-w <home>`), or use a home only its owner can write.',
  },
  ERR_CONFIG: {
    status: 400,
    summary: 'The configuration file or an option is invalid',
    action: 'Correct the setting the text names in the configuration file, environment variable or flag (docs/configuration.md).',
  },
  ERR_DTL: {
    status: 400,
    summary: 'A DTL transform failed to parse, compile or run',
    action: 'Correct the transform at the line and column the text gives (or the data it ran on), then compile again.',
  },
  ERR_SCHEMA_NOT_FOUND: {
    status: 404,
    summary: 'No schema with that name exists',
    action: "Import the schema first, or correct its name (the portal's Schemas page lists them).",
  },
  ERR_TRANSFORM_NOT_FOUND: { status: 404, summary: 'No transform with that name exists', action: 'Save the transform first, or correct its name or version.' },
  ERR_RULE: {
    status: 400,
    summary: 'A routing rule class failed to parse or compile, or could not decide',
    action: 'Correct the rule class at the line and column the text gives (or the message it ran on), then save it again.',
  },
  ERR_RULE_NOT_FOUND: {
    status: 404,
    summary: 'No routing rule with that name exists',
    action: 'Save the rule class first, or correct its name (BusinessRuleName).',
  },
  ERR_LOOKUP_NOT_FOUND: {
    status: 404,
    summary: 'No lookup table with that name exists',
    action: 'Create or import the lookup table first, or correct its name.',
  },
  ERR_AUTH: {
    status: 401,
    summary: 'Missing or wrong credentials',
    action: 'Send HTTP Basic credentials of a user of the server (CLI_USERNAME / CLI_PASSWORD for the cli).',
  },
  ERR_AUTH_THROTTLED: {
    status: 429,
    summary: 'Too many failed logins for the user or from the address; retry after the time given',
    action: 'Wait for the time the reply gives, then sign in with the right password.',
  },
  ERR_FORBIDDEN: {
    status: 403,
    summary: 'The user lacks the role for this operation',
    action: 'Ask an admin for a user with the role the text names (viewer, operator, admin).',
  },
  ERR_INTERNAL: {
    status: 500,
    summary: 'An unexpected internal error',
    action: 'A defect in Conveyor: report it with the server log entry of the request (the log has the full stack).',
  },
  ERR_NOT_AVAILABLE: {
    status: 501,
    summary: 'This server does not offer the operation (the engine lacks the service)',
    action:
      'The operation is not offered here (by this engine or this kind of worker): use the full server; when the text says the portal is not built, run `npm run build:portal`.',
  },
  ERR_UNREACHABLE: {
    status: 503,
    summary: 'The client could not reach the server (refused, unknown host, timeout)',
    action: 'Check the server URL (CLI_URL), that the server runs and that the network lets you reach it.',
  },
  ERR_TLS: {
    status: 502,
    summary: 'The TLS handshake with the server failed (certificate not trusted)',
    action: "Make the client trust the server's certificate (give it the CA that signed it) or use the host name the certificate names.",
  },
  ERR_SERVER: {
    status: 502,
    summary: 'The server answered a client request with an error',
    action: "Read the server's text included in the message; the server log has the details.",
  },
  ERR_USAGE: {
    status: 400,
    summary: 'The command line is malformed (unknown option, missing value, two actions)',
    action: 'Correct the command line; `cli -h` lists the options.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

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

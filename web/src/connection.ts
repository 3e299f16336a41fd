/**
 * How the portal reaches its server: the API client of src/client over the browser's fetch, with the
 * signed-in user's credentials and the chosen namespace; failures carry the server's own text.
 */
import { ConveyorClient, failureOf } from '../../src/client/api-client.ts';
import { createFetchTransport } from '../../src/client/fetch-transport.ts';

export interface Credentials {
  user: string;
  password: string;
}

/**
 * `onRefused` is told the server's text when any call is answered 401: the credentials stopped
 * working (password reset, user disabled or removed), so the session must end wherever it happens.
 */
export function portalClient(credentials: Credentials, namespace: string, onRefused?: (reason: string) => void): ConveyorClient {
  const watched = async (url: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    if (response.status === 401 && onRefused) onRefused(await refusalText(response.clone()));
    return response;
  };
  return new ConveyorClient(
    createFetchTransport({ credentials: { username: credentials.user, password: credentials.password }, ...(onRefused ? { fetch: watched } : {}) }),
    { namespace },
  );
}

/** The `error` text of a 401 reply, without the error-code prefix (`ERROR #AUTH: `). */
async function refusalText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error.replace(/^ERROR #\w+: /, '');
  } catch {
    // Not JSON: the status says enough.
  }
  return 'The server no longer accepts your credentials';
}

/** The HTTP status of a failed call (0 when there was no answer). */
export function failedStatus(error: unknown): number {
  return failureOf(error)?.status ?? 0;
}

/** What the server attached to a failure (e.g. the diagnostics of a refused transform). */
export function failureDetails(error: unknown): unknown {
  return failureOf(error)?.details;
}

/** The message text of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

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

export function portalClient(credentials: Credentials, namespace: string): ConveyorClient {
  return new ConveyorClient(createFetchTransport({ credentials: { username: credentials.user, password: credentials.password } }), { namespace });
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

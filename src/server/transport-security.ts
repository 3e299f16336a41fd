/**
 * Whether credentials can travel in clear text: the API uses HTTP Basic, so a server that listens on
 * anything but the loopback without TLS lets every password cross the network readable. Said at start
 * and by `conveyor doctor`; not refused, because a TLS-terminating proxy on the same host is a valid set-up.
 */
import { isIP } from 'node:net';
import type { ServerConfig } from './config.ts';

/** 127.0.0.0/8, ::1, `localhost` (and its IPv4-mapped form). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** The warning for a configuration that sends passwords in clear text, or null. */
export function plainTextWarning(config: Pick<ServerConfig, 'host' | 'tlsCert'>): string | null {
  if (config.tlsCert !== '' || isLoopbackHost(config.host)) return null;
  return (
    `The API listens on ${config.host} without TLS: passwords (HTTP Basic) and data cross the network in clear text. ` +
    'Set tlsCert and tlsKey (CONVEYOR_TLS_CERT / CONVEYOR_TLS_KEY, --tls-cert / --tls-key), or listen on 127.0.0.1 behind a TLS proxy'
  );
}

/**
 * Certificates made by a test, never committed: a self-signed pair for localhost / 127.0.0.1, and a
 * private CA with a server pair it signed (for NODE_EXTRA_CA_CERTS). Uses the machine's openssl.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CertificatePair {
  cert: string;
  key: string;
}

const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const names = 'subjectAltName=DNS:localhost,IP:127.0.0.1';

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed certificate valid for a day, for localhost and 127.0.0.1. `name` keeps several apart. */
export function selfSignedPair(folder: string, name = 'server'): CertificatePair {
  const pair = { cert: join(folder, `${name}.crt`), key: join(folder, `${name}.key`) };
  openssl(['req', '-x509', ...curve, '-days', '1', '-subj', `/CN=localhost`, '-addext', names, '-keyout', pair.key, '-out', pair.cert]);
  return pair;
}

/** A CA and a server pair it signed; only the CA's certificate makes the server trusted. */
export function privateCaPair(folder: string): CertificatePair & { ca: string } {
  const ca = { cert: join(folder, 'ca.crt'), key: join(folder, 'ca.key') };
  openssl(['req', '-x509', ...curve, '-days', '1', '-subj', '/CN=Conveyor test CA', '-keyout', ca.key, '-out', ca.cert]);
  const request = join(folder, 'signed.csr');
  const pair = { cert: join(folder, 'signed.crt'), key: join(folder, 'signed.key') };
  openssl(['req', ...curve, '-subj', '/CN=localhost', '-keyout', pair.key, '-out', request]);
  const extensions = join(folder, 'signed.ext');
  writeFileSync(extensions, `${names}\n`);
  openssl(['x509', '-req', '-in', request, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '1', '-extfile', extensions, '-out', pair.cert]);
  return { ...pair, ca: ca.cert };
}

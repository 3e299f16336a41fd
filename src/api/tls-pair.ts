/**
 * The certificate and key the TCP listener serves HTTPS with. Both are PEM files read at start and
 * again on reload (SIGHUP), so a renewed certificate is picked up without a restart. A pair that
 * cannot be read, parsed or does not belong together is refused with the file it concerns; a reload
 * that fails keeps the pair in use.
 */
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConveyorError, errorText } from '../core/errors.ts';

export interface TlsFiles {
  /** PEM certificate, optionally followed by its chain. */
  cert: string;
  /** PEM private key of the certificate. */
  key: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
  /** When the (first) certificate stops being valid. */
  validTo: Date;
  subject: string;
}

async function readPem(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : errorText(error);
    throw new ConveyorError('ERR_CONFIG', `Cannot read the TLS ${what} ${path}: ${why}`, {
      hint: 'check tlsCert / tlsKey (CONVEYOR_TLS_CERT / CONVEYOR_TLS_KEY, --tls-cert / --tls-key)',
    });
  }
}

/** Reads and checks a pair: both parse, and the key is the certificate's. */
export async function loadTlsPair(files: TlsFiles): Promise<TlsPair> {
  const [cert, key] = await Promise.all([readPem(files.cert, 'certificate'), readPem(files.key, 'key')]);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new ConveyorError('ERR_CONFIG', `The TLS certificate ${files.cert} is not a PEM certificate: ${errorText(error)}`);
  }
  const options: SecureContextOptions = { cert, key };
  try {
    createSecureContext(options);
  } catch (error) {
    const mismatch = /key values mismatch/i.test(errorText(error));
    throw new ConveyorError(
      'ERR_CONFIG',
      mismatch ? `The TLS key ${files.key} does not belong to the certificate ${files.cert}` : `The TLS key ${files.key} cannot be used: ${errorText(error)}`,
    );
  }
  return { cert, key, validTo: new Date(certificate.validTo), subject: certificate.subject.replace(/\n/g, ', ') };
}

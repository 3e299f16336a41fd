/** Where the CLI's package lives and which version it is (`cli -v`). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

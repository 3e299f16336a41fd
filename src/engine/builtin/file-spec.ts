/**
 * IRIS's `FileSpec`: one or more wildcard patterns separated by `;` (`*.txt;*.csv`), each matching a
 * whole file name, `*` any run of characters and `?` one character; every other character is
 * literal. Empty means `*`.
 */
import { wildcardToRegExp } from './file-inbound-service.ts';

export function fileSpecMatcher(spec: string): (name: string) => boolean {
  const patterns = spec
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map(wildcardToRegExp);
  if (patterns.length === 0) return () => true;
  return (name) => patterns.some((pattern) => pattern.test(name));
}

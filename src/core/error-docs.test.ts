import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorsMarkdown, errorsPagePath } from './error-docs.ts';
import { errorCodes, type ErrorCode } from './errors.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const codes = Object.keys(errorCodes) as ErrorCode[];

describe('docs/errors.md', () => {
  it('is what `npm run docs:errors` writes from the registry (run it after changing src/core/errors.ts)', () => {
    const onDisk = readFileSync(join(repoRoot, errorsPagePath), 'utf8');
    expect(onDisk).toBe(errorsMarkdown());
  });

  it('has one table row per registry code, in registry order, with its status', () => {
    const rows = errorsMarkdown()
      .split('\n')
      .filter((line) => line.startsWith('| `ERR_'));
    expect(rows.map((row) => /^\| `(ERR_[A-Z_]+)`/.exec(row)?.[1])).toEqual(codes);
    for (const [index, code] of codes.entries()) expect(rows[index]).toContain(`| ${errorCodes[code].status} |`);
  });
});

describe('the error registry', () => {
  it.each(codes)('%s says what it means and what to do, as sentences', (code) => {
    const { summary, action } = errorCodes[code];
    expect(summary.trim().length).toBeGreaterThan(10);
    expect(action.trim().length).toBeGreaterThan(10);
    expect(action).toMatch(/[.)]$/);
  });

  it.each(codes)('%s has an HTTP status between 400 and 599', (code) => {
    expect(errorCodes[code].status).toBeGreaterThanOrEqual(400);
    expect(errorCodes[code].status).toBeLessThan(600);
  });
});

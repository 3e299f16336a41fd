/** `npm run docs:errors`: writes docs/errors.md from the error registry (src/core/errors.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorsMarkdown, errorsPagePath } from '../src/core/error-docs.ts';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, errorsPagePath), errorsMarkdown());
console.log(`Wrote ${errorsPagePath}`);

#!/usr/bin/env node
// The `cli` (and `conveyor-cli`) command. It runs the bundle `npm run build:cli` makes
// (dist/cli/main.mjs: one module, about 80 ms to start) while none of the sources it was built from
// is newer than it; otherwise the TypeScript sources through tsx's require hook (the ESM loader runs
// in a worker thread that costs a few hundred milliseconds to boot on every command).
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function freshBundle() {
  try {
    const bundle = statSync(`${root}dist/cli/main.mjs`).mtimeMs;
    const inputs = JSON.parse(readFileSync(`${root}dist/cli/inputs.json`, 'utf8'));
    return inputs.every((input) => statSync(`${root}${input}`).mtimeMs <= bundle) ? `${root}dist/cli/main.mjs` : null;
  } catch {
    return null; // no bundle, or a source it was built from is gone
  }
}

async function loadMain() {
  const bundle = freshBundle();
  if (bundle) return (await import(bundle)).main;
  const require = createRequire(import.meta.url);
  require('tsx/cjs/api').register();
  // tsx turns on Node's source maps; Node would then parse the map of every module it loads (about
  // 250 ms a command with the route declarations). A cli stack trace is never shown to its user.
  process.setSourceMapsEnabled(false);
  return require('../src/cli/main.ts').main;
}

const main = await loadMain();
const code = await main(process.argv.slice(2));
// Every handle is closed by then, but a stray one must not keep a finished command alive.
process.exit(code);

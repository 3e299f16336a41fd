#!/usr/bin/env node
// The `cli` (and `conveyor-cli`) command: runs the compiled cli, dist/cli/main.mjs (one module,
// about 80 ms to start), rebuilt first in a git checkout when a source is newer (build-freshness.js).
// No source maps: a cli stack trace is never shown to its user, and parsing the map costs ~250 ms.
import { freshBuild } from './build-freshness.js';

let cli;
try {
  cli = freshBuild(['cli'], 'cli');
} catch (error) {
  process.stderr.write(`Error: ${error.message}\n`);
  process.exit(1);
}
const { main } = await import(cli);
const code = await main(process.argv.slice(2));
// Every handle is closed by then, but a stray one must not keep a finished command alive.
process.exit(code);

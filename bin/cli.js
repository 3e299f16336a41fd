#!/usr/bin/env node
// The `cli` (and `conveyor-cli`) command: runs the TypeScript sources through tsx, then hands over.
// tsx's require hook is used rather than its ESM loader: the ESM loader runs in a worker thread that
// costs a few hundred milliseconds to boot on every command, the require hook a few.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('tsx/cjs/api').register();
// tsx turns on Node's source maps; with them Node parses the map of every module it loads, which
// made each command about 250 ms slower once the client loads the route declarations (TypeBox).
// A cli stack trace is never shown to its user, so the positions are not worth that.
process.setSourceMapsEnabled(false);
const { main } = require('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// Every handle is closed by then, but a stray one must not keep a finished command alive.
process.exit(code);

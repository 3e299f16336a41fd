#!/usr/bin/env node
// The `conveyor` command (`conveyor serve`, `conveyor doctor`): runs the compiled server,
// dist/server/main.mjs, rebuilt first in a git checkout when a source is newer (build-freshness.js).
// Source maps on: a stack trace in the server's log names the TypeScript file and line.
import { freshBuild } from './build-freshness.js';

let server;
try {
  server = freshBuild(['server', 'portal'], 'server');
} catch (error) {
  process.stderr.write(`Error: ${error.message}\n`);
  process.exit(1);
}
process.setSourceMapsEnabled(true);
await import(server);

// What the bins run is the compiled build in dist/ (`npm run build`, scripts/build.ts), never the
// TypeScript sources. In a git checkout — the sources beside the bins — a bin first rebuilds a target
// that is missing or older than one of the files it was made from (its record in dist/inputs/ lists
// them), so an edited source is never run stale; that check costs a few milliseconds. An installed
// package ships dist/ without the sources: its build is used as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const packageRoot = fileURLToPath(new URL('..', import.meta.url));

const outputs = { server: 'dist/server/main.mjs', cli: 'dist/cli/main.mjs', portal: 'dist/portal/index.html' };
const lockDir = join(packageRoot, 'dist', '.build-lock');
const lockWaitMs = 180_000;

function isFresh(target) {
  try {
    if (!existsSync(join(packageRoot, outputs[target]))) return false;
    const { startedAtMs, inputs } = JSON.parse(readFileSync(join(packageRoot, 'dist', 'inputs', `${target}.json`), 'utf8'));
    return inputs.every((input) => statSync(join(packageRoot, input)).mtimeMs <= startedAtMs);
  } catch {
    return false; // no build record, or a file the build was made from is gone
  }
}

function lockAgeMs() {
  try {
    return Date.now() - statSync(lockDir).mtimeMs;
  } catch {
    return 0; // released meanwhile
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function processExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * One build at a time per checkout (tests and a developer may start several bins at once); a lock
 * whose owner died (kill -9 during a build) is taken over. Returns the release function.
 */
function lockBuilds() {
  mkdirSync(join(packageRoot, 'dist'), { recursive: true });
  const deadline = Date.now() + lockWaitMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'owner'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let owner = 0;
    try {
      owner = Number(readFileSync(join(lockDir, 'owner'), 'utf8'));
    } catch {
      // the owner has not written its pid yet, or just released the lock
    }
    // A lock without an owner after a few seconds was left by a bin killed right after taking it.
    const abandoned = Number.isInteger(owner) && owner > 0 ? !processExists(owner) : lockAgeMs() > 5_000;
    if (abandoned) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`Another build of ${packageRoot} has held ${lockDir} for ${lockWaitMs / 1000} s; remove that folder if no build runs`);
    }
    sleep(100);
  }
}

function build(targets) {
  if (!existsSync(join(packageRoot, 'node_modules', 'esbuild'))) {
    throw new Error(
      `The build in ${join(packageRoot, 'dist')} is missing or older than its sources, and the build tools are not installed: run npm install, then npm run build`,
    );
  }
  if (process.stderr.isTTY) process.stderr.write(`Building ${targets.map((target) => `dist/${target}`).join(', ')} (missing or older than its sources)…\n`);
  // Its output goes to stderr: a bin's stdout is its own (the cli's replies are parsed by scripts).
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(packageRoot, 'scripts', 'build.ts'), ...targets], {
    cwd: packageRoot,
    stdio: ['ignore', 2, 2],
  });
  if (result.status !== 0) {
    const how = result.error ? result.error.message : result.signal ? `killed by ${result.signal}` : `exit code ${result.status}`;
    throw new Error(`The build of ${targets.join(', ')} failed (${how}); see the messages above, or run npm run build`);
  }
}

/** Makes sure `targets` are built and fresh; returns the file URL of `main`'s output to import. */
export function freshBuild(targets, main) {
  const checkout = existsSync(join(packageRoot, 'src', 'server', 'main.ts'));
  if (checkout && !targets.every(isFresh)) {
    const release = lockBuilds();
    try {
      // Another bin may have built them while this one waited for the lock.
      const stale = targets.filter((target) => !isFresh(target));
      if (stale.length > 0) build(stale);
    } finally {
      release();
    }
  }
  const output = join(packageRoot, outputs[main]);
  if (!existsSync(output)) throw new Error(`${output} is missing: this installation of Conveyor is incomplete (reinstall it)`);
  return pathToFileURL(output).href;
}

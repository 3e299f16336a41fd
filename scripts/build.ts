/**
 * `npm run build [-- server cli portal] [--clean]`: compiles what the bins run into `dist/` (all three targets
 * when none is named):
 *
 * - `server`: `src/server/main.ts` bundled by esbuild into one ES module, `dist/server/main.mjs`,
 *   with what it imports lazily in `dist/server/chunks/`;
 * - `cli`: `src/cli/main.ts` likewise into `dist/cli/main.mjs`;
 * - `portal`: the React portal built by Vite into `dist/portal/`.
 *
 * One bundled module instead of some 700 (TypeBox's alone) loaded through tsx: a `cli` command starts
 * in about 80 ms instead of 400, and the idle server holds about 110 MB instead of 160–180. Each
 * bundle sits two folders below the package root like its sources, so the paths the code finds from
 * `import.meta.url` (python/, cls/, examples/, dist/portal, package.json) are the same in both.
 * Source maps are written beside each bundle, without the sources' text (Node keeps every map it
 * loads in memory: the full one cost the server 35 MB).
 *
 * Beside the outputs, `dist/inputs/<target>.json` records when the build started and the repository
 * files it was made from; `bin/build-freshness.js` rebuilds a target of a git checkout when one of
 * them is newer. Every output file is written under a temporary name and renamed into place, so a
 * build killed half-way leaves the previous output (and its older record, hence stale) in place, and
 * a running server never reads a half-written file.
 */
import { build as esbuild, type BuildOptions, type Metafile } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as viteBuild, type Plugin } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const targets = ['server', 'cli', 'portal'] as const;
type Target = (typeof targets)[number];

/** Files every target depends on besides its own sources: a dependency upgrade or a change here rebuilds. */
const sharedInputs = ['package-lock.json', 'scripts/build.ts'];

// Bundled CommonJS packages (commander, fastify, pg…) call require for Node's own modules.
const requireBanner = "import { createRequire as createRequireOfBundle } from 'node:module';\nconst require = createRequireOfBundle(import.meta.url);";

const bundles: Record<Exclude<Target, 'portal'>, BuildOptions> = {
  server: {
    entryPoints: { main: join(root, 'src', 'server', 'main.ts') },
    // better-sqlite3 loads a native addon from its own folder; pg-native is pg's optional native
    // driver, which Conveyor does not use (pg requires it only when asked for it).
    external: ['better-sqlite3', 'pg-native'],
    // What the server imports lazily stays lazy: the PostgreSQL driver, the migration and the
    // OpenTelemetry SDK are chunks of their own, loaded only when a home needs them.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  },
  cli: { entryPoints: { main: join(root, 'src', 'cli', 'main.ts') } },
};

/**
 * A file of an earlier build may still be asked for after this build: a chunk by a server started
 * before it (its migration chunk, say, on the next `cli -m`), a portal asset by a page loaded before
 * it. One no build refers to is removed once it is a week old, or at once with `--clean` (npm pack's
 * build, so the package holds only the current build).
 */
function removeUnreferenced(folder: string, current: Set<string>, clean: boolean): void {
  const weekAgo = Date.now() - 7 * 24 * 3600_000;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return; // nothing built there yet
  }
  for (const name of names) {
    const path = join(folder, name);
    if (!current.has(path) && (clean || statSync(path).mtimeMs < weekAgo)) rmSync(path, { force: true });
  }
}

function repositoryFiles(paths: Iterable<string>): string[] {
  const files = new Set(sharedInputs);
  for (const path of paths) {
    const file = relative(root, path);
    if (!file.startsWith('..') && !file.split('/').includes('node_modules') && !file.startsWith('\0')) files.add(file);
  }
  return [...files].sort();
}

function writeAtomically(path: string, contents: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

function recordInputs(target: Target, startedAtMs: number, inputs: string[]): void {
  writeAtomically(join(dist, 'inputs', `${target}.json`), `${JSON.stringify({ startedAtMs, inputs }, null, 1)}\n`);
}

/**
 * A source that finds a file relative to itself (`new URL('../../examples/…', import.meta.url)`)
 * finds it from a bundle only while its code lies in `main.mjs`, two folders below the root like
 * the sources: in `chunks/` it would look one folder too high. Such a source shared with a lazily
 * loaded module would be moved there, so the build refuses that rather than ship a broken path.
 */
function refuseRelocatedPaths(metafile: Metafile): void {
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (!output.includes('/chunks/')) continue;
    for (const input of Object.keys(inputs)) {
      if (input.includes('node_modules') || !input.endsWith('.ts')) continue;
      if (/new URL\(\s*['"]\.\.\//.test(readFileSync(join(root, input), 'utf8'))) {
        throw new Error(
          `${input} finds files relative to itself, but the build put it into the chunk ${output}, where those paths point one folder too high: have it walk up to the package root (see src/bridge/sdk-path.ts) or keep it out of lazily imported modules`,
        );
      }
    }
  }
}

async function buildBundle(target: Exclude<Target, 'portal'>, clean: boolean): Promise<void> {
  const startedAtMs = Date.now();
  const outdir = join(dist, target);
  const result = await esbuild({
    ...bundles[target],
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'warning',
    banner: { js: requireBanner },
  });
  refuseRelocatedPaths(result.metafile);
  for (const file of result.outputFiles) writeAtomically(file.path, file.contents);
  removeUnreferenced(join(outdir, 'chunks'), new Set(result.outputFiles.map((file) => file.path)), clean);
  recordInputs(target, startedAtMs, repositoryFiles(Object.keys(result.metafile.inputs).map((input) => join(root, input))));
}

/** Collects the files Vite compiled into the portal (the HTML entry, the portal's and src/'s modules). */
function moduleRecorder(modules: Set<string>): Plugin {
  return {
    name: 'conveyor-record-inputs',
    buildEnd() {
      for (const id of this.getModuleIds()) modules.add(id.split('?')[0]!);
    },
  };
}

/** Every file below `folder`, as paths relative to it. */
function filesBelow(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => statSync(join(folder, file)).isFile());
}

async function buildPortal(clean: boolean): Promise<void> {
  const startedAtMs = Date.now();
  const modules = new Set<string>([join(root, 'web', 'vite.config.ts'), join(root, 'web', 'index.html')]);
  const staging = join(dist, `.portal-${process.pid}`);
  await viteBuild({
    configFile: join(root, 'web', 'vite.config.ts'),
    logLevel: 'warn',
    plugins: [moduleRecorder(modules)],
    build: { outDir: staging, emptyOutDir: true },
  });
  // Moved in file by file, index.html last: a server serving dist/portal meanwhile (a browser test,
  // say) finds either the previous page with its assets or the new one with its own, never a gap.
  const portal = join(dist, 'portal');
  const built = filesBelow(staging).sort((a, b) => Number(a === 'index.html') - Number(b === 'index.html'));
  for (const file of built) {
    mkdirSync(dirname(join(portal, file)), { recursive: true });
    renameSync(join(staging, file), join(portal, file));
  }
  rmSync(staging, { recursive: true, force: true });
  removeUnreferenced(join(portal, 'assets'), new Set(built.map((file) => join(portal, file))), clean);
  recordInputs('portal', startedAtMs, repositoryFiles(modules));
}

function isTarget(name: string): name is Target {
  return (targets as readonly string[]).includes(name);
}

const clean = process.argv.includes('--clean');
const requested = process.argv.slice(2).filter((arg) => arg !== '--clean');
const unknown = requested.filter((name) => !isTarget(name));
if (unknown.length > 0) {
  process.stderr.write(`Unknown build target ${unknown.join(', ')}: the targets are ${targets.join(', ')}\n`);
  process.exit(2);
}
const chosen = requested.length > 0 ? requested.filter(isTarget) : [...targets];
for (const target of chosen) {
  if (target === 'portal') await buildPortal(clean);
  else await buildBundle(target, clean);
}

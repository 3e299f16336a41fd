/**
 * bin/build-freshness.js, the check every bin makes before it runs the compiled build: in a checkout
 * it rebuilds a target that is missing or older than a file it was made from, and only then; in an
 * installed package (no sources) it runs the build as it is. Run on a copy of the bin inside a
 * throwaway package whose scripts/build.ts is a stand-in that records each call, so the real dist/
 * of this checkout is never touched.
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

type FreshBuild = (targets: string[], main: string) => string;

// Writes what the real build writes for each target named on its command line: the output and its
// record (the build's start time, the inputs), and a line in builds.log; exits 1 when FAIL_BUILD is set.
const standInBuild = `
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
const startedAtMs = Date.now();
if (process.env.FAIL_BUILD) { console.error('stand-in build failed'); process.exit(1); }
for (const target of process.argv.slice(2)) {
  mkdirSync('dist/' + target, { recursive: true });
  mkdirSync('dist/inputs', { recursive: true });
  writeFileSync('dist/' + target + '/main.mjs', 'export const built = ' + startedAtMs + ';');
  writeFileSync('dist/inputs/' + target + '.json', JSON.stringify({ startedAtMs, inputs: ['src/cli/main.ts'] }));
  appendFileSync('builds.log', target + '\\n');
}
`;

describe('the bins’ build freshness check', () => {
  let work: ReturnType<typeof tempDir>;
  let root: string;
  let importCount = 0;

  /** A fresh copy of the module (its package root is where the copy lies). */
  async function freshBuildOf(packageRoot: string): Promise<FreshBuild> {
    const copy = join(packageRoot, 'bin', `build-freshness-${importCount++}.js`);
    copyFileSync(join(repoRoot, 'bin', 'build-freshness.js'), copy);
    return ((await import(pathToFileURL(copy).href)) as { freshBuild: FreshBuild }).freshBuild;
  }

  const builds = () => (existsSync(join(root, 'builds.log')) ? readFileSync(join(root, 'builds.log'), 'utf8').trim().split('\n') : []);

  beforeEach(() => {
    work = tempDir('conveyor-freshness-');
    root = join(work.path, 'package');
    for (const folder of ['bin', 'scripts', 'src/server', 'src/cli']) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, 'src', 'server', 'main.ts'), '// the checkout marker\n');
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export {};\n');
    writeFileSync(join(root, 'scripts', 'build.ts'), standInBuild);
    // The build tools of the checkout (tsx runs the stand-in; esbuild's presence says they are installed).
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  });

  afterEach(() => work.remove());

  it('builds a missing target, then runs it without building again while no source changed', async () => {
    const freshBuild = await freshBuildOf(root);
    const main = freshBuild(['cli'], 'cli');
    expect(main).toBe(pathToFileURL(join(root, 'dist', 'cli', 'main.mjs')).href);
    expect(builds()).toEqual(['cli']);
    freshBuild(['cli'], 'cli');
    expect(builds()).toEqual(['cli']);
  });

  it('rebuilds a target when a file it was made from is newer than the build', async () => {
    const freshBuild = await freshBuildOf(root);
    freshBuild(['cli'], 'cli');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'src', 'cli', 'main.ts'), later, later);
    freshBuild(['cli'], 'cli');
    expect(builds()).toEqual(['cli', 'cli']);
  });

  it('rebuilds when the output is gone though its record is still there', async () => {
    const freshBuild = await freshBuildOf(root);
    freshBuild(['cli'], 'cli');
    rmSync(join(root, 'dist', 'cli', 'main.mjs'));
    freshBuild(['cli'], 'cli');
    expect(builds()).toEqual(['cli', 'cli']);
  });

  it('says the build failed and how to retry, and runs nothing', async () => {
    const freshBuild = await freshBuildOf(root);
    process.env['FAIL_BUILD'] = '1';
    try {
      expect(() => freshBuild(['cli'], 'cli')).toThrow('The build of cli failed (exit code 1); see the messages above, or run npm run build');
    } finally {
      delete process.env['FAIL_BUILD'];
    }
    expect(existsSync(join(root, 'dist', '.build-lock'))).toBe(false);
  });

  it('takes over the lock of a build whose bin was killed', async () => {
    const freshBuild = await freshBuildOf(root);
    mkdirSync(join(root, 'dist', '.build-lock'), { recursive: true });
    // A pid that is not running: the highest possible one.
    writeFileSync(join(root, 'dist', '.build-lock', 'owner'), '4194304');
    freshBuild(['cli'], 'cli');
    expect(builds()).toEqual(['cli']);
  });

  it('in a checkout without the build tools, says to install them', async () => {
    rmSync(join(root, 'node_modules'));
    const freshBuild = await freshBuildOf(root);
    expect(() => freshBuild(['cli'], 'cli')).toThrow('the build tools are not installed: run npm install, then npm run build');
  });

  it('in an installed package (no sources) runs the build as it is, and says when it is missing', async () => {
    rmSync(join(root, 'src'), { recursive: true });
    const freshBuild = await freshBuildOf(root);
    expect(() => freshBuild(['cli'], 'cli')).toThrow(
      `${join(root, 'dist', 'cli', 'main.mjs')} is missing: this installation of Conveyor is incomplete (reinstall it)`,
    );
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    appendFileSync(join(root, 'dist', 'cli', 'main.mjs'), 'export {};\n');
    expect(freshBuild(['cli'], 'cli')).toBe(pathToFileURL(join(root, 'dist', 'cli', 'main.mjs')).href);
    expect(builds()).toEqual([]);
  });
});

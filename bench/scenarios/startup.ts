/**
 * Start-up: how long `conveyor serve` takes from process start until its API answers, and until the
 * example production runs, as `npm start` runs it (the compiled build, dist/server/main.mjs) and, for
 * comparison, as before issue 19 (the TypeScript sources through tsx); then the idle resident memory
 * of both with the example production running (issue 14's bar: under 150 MB).
 *
 * Each run spawns a server on a fresh home (port 0) and polls `GET /status` every 10 ms:
 * - `ready`: a fresh home without a production — process start to the first answer;
 * - `example`: a fresh home with `--example` — process start to the example production running (the
 *   server migrates the Python example and starts it before it listens, so this includes `ready`);
 * - `restart`: that home again (AutoStart) — process start to the production running.
 * The build is made first (`npm run build`), so no run includes a build.
 * Run: node --import tsx bench/scenarios/startup.ts [--quick] [--runs=N]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mb, processCpuMs, processRss } from '../support/resources.ts';
import { quick, repoRoot, runScenario } from '../support/results.ts';
import { adminPassword, cleanEnv } from '../support/server.ts';
import { fmt, spread, type Spread } from '../support/stats.ts';

const runsFlag = process.argv.find((arg) => arg.startsWith('--runs='));
const runs = runsFlag ? Number(runsFlag.slice(7)) : quick ? 3 : 7;
const idleSettleMs = quick ? 2000 : 5000;
const authorization = `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}`;

// What bin/conveyor.js runs once it found the build fresh (that check, about 2 ms, is left out so
// that a source edited during the run cannot put a rebuild into a figure).
const launchers = {
  dist: ['--enable-source-maps', join(repoRoot, 'dist', 'server', 'main.mjs')],
  tsx: ['--import', 'tsx', join(repoRoot, 'src', 'server', 'main.ts')],
} as const;
type Launcher = keyof typeof launchers;

interface Started {
  pid: number;
  /** Process start to the first `GET /status` answer. */
  answeredMs: number;
  /** Process start to the production of `GET /status` running (null: none was asked for). */
  runningMs: number | null;
  /** CPU time the server process (Node, not its Python workers) had spent by then: on a busy machine the wall time waits for the CPU, this does not. */
  cpuMs: number;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(api: string): Promise<{ status?: string } | null> {
  try {
    const reply = await fetch(`${api}/status`, { headers: { authorization } });
    return reply.ok ? ((await reply.json()) as { status?: string }) : null;
  } catch {
    return null;
  }
}

async function start(launcher: Launcher, home: string, options: { example: boolean; waitRunning: boolean }): Promise<Started> {
  const began = performance.now();
  const child = spawn(process.execPath, [...launchers[launcher], 'serve', '--home', home, '--port', '0', ...(options.example ? ['--example'] : [])], {
    cwd: repoRoot,
    env: cleanEnv({ CONVEYOR_ADMIN_PASSWORD: adminPassword }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const deadline = began + 60_000;
    let answeredMs: number | null = null;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
      if (performance.now() > deadline) throw new Error(`the server did not get ready within 60 s:\n${output}`);
      // The port is known once the server prints it; before that there is nothing to ask.
      const api = /API: (http:\/\/\S+)/.exec(output)?.[1];
      const reply = api ? await status(api) : null;
      if (reply) {
        answeredMs ??= performance.now() - began;
        if (!options.waitRunning) return { pid: child.pid!, answeredMs, runningMs: null, cpuMs: processCpuMs(child.pid!), stop };
        if (reply.status === 'running') return { pid: child.pid!, answeredMs, runningMs: performance.now() - began, cpuMs: processCpuMs(child.pid!), stop };
      }
      await sleep(10);
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

async function idleRssMb(pid: number): Promise<number> {
  await sleep(idleSettleMs);
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push(mb(processRss(pid)));
    await sleep(200);
  }
  return spread(samples).median;
}

interface LauncherFigures {
  readyMs: Spread;
  exampleRunningMs: Spread;
  restartRunningMs: Spread;
  readyCpuMs: Spread;
  exampleCpuMs: Spread;
  idleRssMb: Spread;
}

async function measure(launcher: Launcher, count: number): Promise<LauncherFigures> {
  const ready: number[] = [];
  const example: number[] = [];
  const restart: number[] = [];
  const rss: number[] = [];
  const readyCpu: number[] = [];
  const exampleCpu: number[] = [];
  for (let run = 0; run < count; run++) {
    const homes = [mkdtempSync(join(tmpdir(), 'conveyor-bench-start-')), mkdtempSync(join(tmpdir(), 'conveyor-bench-start-'))];
    try {
      const bare = await start(launcher, homes[0]!, { example: false, waitRunning: false });
      ready.push(bare.answeredMs);
      readyCpu.push(bare.cpuMs);
      await bare.stop();
      const first = await start(launcher, homes[1]!, { example: true, waitRunning: true });
      example.push(first.runningMs!);
      exampleCpu.push(first.cpuMs);
      await first.stop();
      const again = await start(launcher, homes[1]!, { example: false, waitRunning: true });
      restart.push(again.runningMs!);
      // Idle memory: the restarted server, its example production running.
      rss.push(await idleRssMb(again.pid));
      await again.stop();
    } finally {
      for (const home of homes) rmSync(home, { recursive: true, force: true });
    }
  }
  const figures = {
    readyMs: spread(ready),
    exampleRunningMs: spread(example),
    restartRunningMs: spread(restart),
    readyCpuMs: spread(readyCpu),
    exampleCpuMs: spread(exampleCpu),
    idleRssMb: spread(rss),
  };
  const range = (s: Spread) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
  console.log(
    `   ${launcher.padEnd(4)} ${count} runs, medians (min–max): ready ${range(figures.readyMs)} ms; example running ${range(figures.exampleRunningMs)} ms; restart running ${range(figures.restartRunningMs)} ms; server CPU to ready ${range(figures.readyCpuMs)} ms, to the example running ${range(figures.exampleCpuMs)} ms; idle RSS ${range(figures.idleRssMb)} MB`,
  );
  return figures;
}

await runScenario('startup', { runs, idleSettleMs, server: 'conveyor serve --port 0 on a fresh home, SQLite durability full' }, async () => {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  const dist = await measure('dist', runs);
  const tsx = await measure('tsx', Math.max(2, Math.ceil(runs / 2)));
  const exampleAfterReady = dist.exampleRunningMs.median - dist.readyMs.median;
  console.log(
    `   bar: ready ${fmt(dist.readyMs.median)} ms ≤ 2000 ms ${dist.readyMs.median <= 2000 ? 'met' : 'NOT met'}; example running ${fmt(exampleAfterReady)} ms later ≤ 2000 ms ${exampleAfterReady <= 2000 ? 'met' : 'NOT met'}; idle RSS ${fmt(dist.idleRssMb.median)} MB < 150 MB ${dist.idleRssMb.median < 150 ? 'met' : 'NOT met'} (tsx: ${fmt(tsx.idleRssMb.median)} MB)`,
  );
  return { dist, tsx, exampleAfterReadyMs: exampleAfterReady };
});

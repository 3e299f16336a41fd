/**
 * Wall time of the real `cli` command, process start to exit, next to bare `node -e 0`: `cli -v` (start-up alone), a remote
 * `cli -x` (HTTP + Basic auth to a server on 127.0.0.1) and a local `cli -l` (the home's Unix socket).
 * Prints the median and the spread of each; asserts nothing. The aim for a remote `cli -x` is < 150 ms.
 * Run: node --import tsx bench/cli.ts [runs]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 15);
const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'bin', 'cli.js');
const password = 'bench-secret';

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(CLI_|IOP_|CONVEYOR_)/.test(name)) env[name] = value;
  return { ...env, ...extra };
}

function measure(label: string, args: string[], env: Record<string, string>): void {
  const samples: number[] = [];
  for (let run = 0; run < runs + 2; run++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args[0] === '-e' ? args : [cli, ...args], { env, encoding: 'utf8' });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0) throw new Error(`cli ${args.join(' ')} failed: ${result.stderr}`);
    if (run >= 2) samples.push(elapsed); // the first runs fill tsx's transform cache
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  console.log(
    `${label.padEnd(12)} ${String(runs).padStart(3)} runs  median ${at(0.5).toFixed(0).padStart(4)} ms  min ${at(0).toFixed(0).padStart(4)} ms  max ${at(1).toFixed(0).padStart(4)} ms`,
  );
}

const home = mkdtempSync(join(tmpdir(), 'bench-cli-'));
const server = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'server', 'main.ts'), 'serve', '--home', home, '--port', '0'], {
  cwd: root,
  env: baseEnv({ CONVEYOR_ADMIN_PASSWORD: password }),
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API: (http:\/\/[^\s/]+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  console.log(
    `load average ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // The floor: what starting Node itself costs on this machine right now.
  measure('node -e 0', ['-e', '0'], baseEnv({}));
  measure('cli -v', ['-v'], baseEnv({}));
  measure('remote -x', ['-x'], baseEnv({ CLI_URL: url, CLI_USERNAME: 'admin', CLI_PASSWORD: password }));
  measure('local -l', ['-l'], baseEnv({ CONVEYOR_HOME: home }));
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(home, { recursive: true, force: true });
}

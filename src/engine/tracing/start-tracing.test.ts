/**
 * Tracing off loads nothing of OpenTelemetry; on, it loads the SDK and installs the tracer. Checked in
 * a fresh Node process, since this test process has loaded the SDK for the other trace tests.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs startTracing with `env` in a fresh process; answers whether any OpenTelemetry module got loaded, and the handle's text. */
function startIn(env: Record<string, string>): { loaded: boolean; installed: boolean; description: string | null } {
  const script = `
    import { createRequire } from 'node:module';
    import { startTracing } from './src/engine/tracing/start-tracing.ts';
    import { activeTracer } from './src/engine/tracing/message-tracer.ts';
    const handle = await startTracing(${JSON.stringify(env)});
    const cache = createRequire(import.meta.url).cache;
    const loaded = Object.keys(cache).some((path) => path.includes('@opentelemetry'));
    console.log(JSON.stringify({ loaded, installed: activeTracer() !== null, description: handle?.description ?? null }));
    await handle?.shutdown();`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as { loaded: boolean; installed: boolean; description: string | null };
}

describe('startTracing', () => {
  it('with no OTEL_* variable, loads no OpenTelemetry module and installs no tracer', () => {
    expect(startIn({})).toEqual({ loaded: false, installed: false, description: null });
    expect(startIn({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ loaded: false, installed: false, description: null });
  });

  it('ends within its limit when the collector never answers (the spans are dropped)', () => {
    // A collector that accepts the connection and never replies; the exporter itself would wait 120 s.
    const script = `
      import { createServer } from 'node:http';
      const collector = createServer(() => undefined);
      await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve));
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:' + collector.address().port;
      process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '120000';
      const { startTracing } = await import('./src/engine/tracing/start-tracing.ts');
      const { activeTracer } = await import('./src/engine/tracing/message-tracer.ts');
      const handle = await startTracing(process.env);
      activeTracer().startHop({ namespace: 'USER', name: 'Op', kind: 'operation', classname: 'X' }, null).end(1);
      await handle.shutdown(300);
      console.log('ended');
      process.exit(0);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8', timeout: 50_000 });
    expect(run.stdout.trim(), run.stderr).toBe('ended');
  });

  it('when configured, loads the SDK, installs the tracer and says where spans go', () => {
    expect(startIn({ OTEL_TRACES_EXPORTER: 'console' })).toEqual({
      loaded: true,
      installed: true,
      description: 'Tracing: spans of service conveyor exported to the console',
    });
  });
});

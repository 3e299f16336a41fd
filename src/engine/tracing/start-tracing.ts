/**
 * Turns tracing on when the OTEL_* environment asks for it. The OpenTelemetry SDK is imported here,
 * lazily, only then: with tracing off this module loads nothing and installs nothing.
 */
import { activeTracer, installTracer } from './message-tracer.ts';
import { tracingConfigFromEnv } from './tracing-config.ts';

export interface TracingHandle {
  /** One line for the server's start output: what is exported where. */
  description: string;
  /** Uninstalls the tracer and exports what is still buffered, for at most `limitMs`; the rest is dropped. */
  shutdown(limitMs?: number): Promise<void>;
}

/** A collector that does not answer must not hold up the server's shutdown (whose whole limit is 20 s by default). */
const defaultShutdownLimitMs = 3_000;

/** Null when tracing is off. Throws ERR_CONFIG for a variable it cannot honour. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<TracingHandle | null> {
  const config = tracingConfigFromEnv(env);
  if (config === null) return null;
  const { tracerFromConfig } = await import('./otel-tracer.ts');
  const tracer = tracerFromConfig(config);
  installTracer(tracer);
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? env['OTEL_EXPORTER_OTLP_ENDPOINT'] ?? 'http://localhost:4318';
  const targets = config.exporters.map((name) => (name === 'otlp' ? `OTLP ${config.protocol} to ${endpoint}` : 'the console'));
  return {
    description: `Tracing: spans of service ${tracer.serviceName} exported to ${targets.join(' and ')}`,
    async shutdown(limitMs = defaultShutdownLimitMs) {
      if (activeTracer() === tracer) installTracer(null);
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
      try {
        await Promise.race([tracer.shutdown().catch(() => undefined), limit]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

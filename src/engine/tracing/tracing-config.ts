/**
 * Whether and how to trace, read from the standard OpenTelemetry environment variables. Pure: no
 * OpenTelemetry module is needed to decide that tracing is off.
 *
 * Off unless asked for — unlike the OpenTelemetry default (`otlp`), because a server that sends to
 * localhost:4318 on its own would surprise: tracing is on when OTEL_TRACES_EXPORTER names an exporter,
 * or when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * and OTEL_TRACES_EXPORTER is unset. OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off.
 * The rest (endpoint, headers, timeout, compression, sampler, batch sizes, service name, resource
 * attributes) is read by the OpenTelemetry SDK itself, with its documented defaults.
 */
import { ConveyorError } from '../../core/errors.ts';

export type TraceExporterName = 'otlp' | 'console';
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingConfig {
  exporters: TraceExporterName[];
  /** For `otlp`: the OTLP/HTTP encoding. */
  protocol: OtlpProtocol;
}

type Env = Readonly<Record<string, string | undefined>>;

const exporterNames: readonly string[] = ['otlp', 'console'];
const protocols: readonly string[] = ['http/protobuf', 'http/json'];

function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

/** Null: tracing is off. Throws ERR_CONFIG naming the variable when a value cannot be honoured. */
export function tracingConfigFromEnv(env: Env): TracingConfig | null {
  if (setting(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const listed = setting(env, 'OTEL_TRACES_EXPORTER');
  const endpoint = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const names =
    listed === undefined
      ? endpoint === undefined
        ? []
        : ['otlp']
      : listed
          .toLowerCase()
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
  if (names.length === 0 || names.includes('none')) return null;
  const unknown = names.filter((name) => !exporterNames.includes(name));
  if (unknown.length > 0) {
    throw new ConveyorError('ERR_CONFIG', `OTEL_TRACES_EXPORTER names an exporter Conveyor does not have: ${unknown.join(', ')}`, {
      hint: 'Use otlp (OTLP over HTTP), console, or none',
    });
  }
  const protocol = (setting(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? setting(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf').toLowerCase();
  if (names.includes('otlp') && !protocols.includes(protocol)) {
    throw new ConveyorError('ERR_CONFIG', `OTEL_EXPORTER_OTLP_PROTOCOL ${protocol} is not supported: Conveyor exports OTLP over HTTP only`, {
      hint: 'Use http/protobuf (the default) or http/json; a collector takes both on port 4318',
    });
  }
  return {
    exporters: [...new Set(names)] as TraceExporterName[],
    protocol: protocol as OtlpProtocol,
  };
}

import { describe, expect, it } from 'vitest';
import { tracingConfigFromEnv } from './tracing-config.ts';

describe('tracing configuration from OTEL_* variables', () => {
  it('is off when nothing asks for it', () => {
    expect(tracingConfigFromEnv({})).toBeNull();
    expect(tracingConfigFromEnv({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBeNull();
  });

  it('is on with an OTLP endpoint alone, in http/protobuf by default', () => {
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
    });
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })?.protocol).toBe(
      'http/json',
    );
  });

  it('takes the exporters and the protocol', () => {
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'OTLP, console,otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      exporters: ['otlp', 'console'],
      protocol: 'http/json',
    });
    // The per-signal protocol wins over the general one.
    expect(
      tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })
        ?.protocol,
    ).toBe('http/protobuf');
  });

  it('is off when disabled or set to none, whatever else is set', () => {
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toBeNull();
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeNull();
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'false' })?.exporters).toEqual(['console']);
  });

  it('refuses an exporter or a protocol it cannot honour, naming the variable', () => {
    expect(() => tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toThrow(/OTEL_TRACES_EXPORTER .*zipkin/);
    expect(() => tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL grpc/);
    // The protocol matters only to the otlp exporter.
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })?.exporters).toEqual(['console']);
  });
});

/**
 * A real `conveyor serve`, configured only by the standard OTEL_* variables, exports the spans of a
 * service → process → operation run (real python3 workers) over OTLP/HTTP to a receiver this test
 * runs: http/json (decoded and checked span by span) and http/protobuf (the default encoding). An
 * exporter it does not have stops the start with a clear error.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const fixture = fileURLToPath(new URL('../fixtures/tracing', import.meta.url));

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

/** The OTLP/HTTP JSON shapes this test reads (ids are hex strings in OTLP JSON). */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
}
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

const attribute = (attributes: Array<{ key: string; value: OtlpValue }>, key: string): string | undefined => {
  const value = attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : String(value.stringValue ?? value.intValue ?? value.boolValue);
};

async function packageFiles(): Promise<Array<{ name: string; data: string }>> {
  const entries = await readdir(fixture, { withFileTypes: true, recursive: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.py'))
      .map(async (entry) => ({
        name: relative(fixture, join(entry.parentPath, entry.name)),
        data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
      })),
  );
}

describe('OTLP/HTTP export from a real server', () => {
  const received: Received[] = [];
  let receiver: Server;
  let endpoint: string;
  const homes: Array<ReturnType<typeof tempDir>> = [];
  let server: ServerProcess | null = null;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', contentType: String(request.headers['content-type']), body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await server?.kill();
    server = null;
    received.length = 0;
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    for (const home of homes) home.remove();
  });

  async function serveTraced(env: Record<string, string>): Promise<ServerProcess> {
    const home = tempDir('conveyor-otlp-');
    homes.push(home);
    server = await startServerProcess(home.path, [], { OTEL_BSP_SCHEDULE_DELAY: '200', ...env });
    const migrated = await server.local('PUT', '/api/iop/migrate', { package: 'traced', body: await packageFiles() });
    expect(migrated.status, migrated.text).toBe(200);
    const started = await server.local('POST', '/api/iop/start', { production: 'Traced.Production' });
    expect(started.status, started.text).toBe(200);
    return server;
  }

  it('sends the span tree as OTLP JSON to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, under OTEL_SERVICE_NAME', async () => {
    const running = await serveTraced({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'conveyor-e2e' });
    expect(running.output()).toContain(`Tracing: spans of service conveyor-e2e exported to OTLP http/json to ${endpoint}`);
    const spans = await eventually(() => {
      const all = received.flatMap((r) =>
        (JSON.parse(r.body.toString('utf8')) as OtlpExport).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
      );
      return all.some((span) => span.name === 'service Pulse') ? all : undefined;
    }, 'the service span at the receiver');
    expect(received.every((r) => r.path === '/v1/traces' && r.contentType.startsWith('application/json'))).toBe(true);
    const resource = (JSON.parse(received[0]!.body.toString('utf8')) as OtlpExport).resourceSpans[0]!.resource;
    expect(attribute(resource.attributes, 'service.name')).toBe('conveyor-e2e');

    const one = (name: string, parent?: OtlpSpan) => {
      const found = spans.filter((span) => span.name === name && (parent === undefined || span.parentSpanId === parent.spanId));
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const service = one('service Pulse');
    const process = one('process Checkout', one('python on_process_input', service));
    const operation = one('operation Ledger', one('python on_message', process));
    one('python on_message', operation);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([service.traceId]));
    expect(attribute(process.attributes, 'conveyor.item')).toBe('Checkout');
    expect(attribute(operation.attributes, 'conveyor.session.id')).toBe(attribute(service.attributes, 'conveyor.session.id'));
    expect(attribute(operation.attributes, 'conveyor.message.id')).toMatch(/^\d+$/);
  });

  it('sends OTLP protobuf by default, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given', async () => {
    const running = await serveTraced({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/custom/traces` });
    expect(running.output()).toContain('exported to OTLP http/protobuf');
    // Protobuf carries strings as raw UTF-8: the span names are in the bytes.
    await eventually(() => received.some((r) => r.body.includes('operation Ledger')) || undefined, 'the operation span at the receiver');
    expect(received.every((r) => r.path === '/custom/traces' && r.contentType === 'application/x-protobuf')).toBe(true);
  });

  it('refuses to start with an exporter it does not have, naming the variable', async () => {
    const home = tempDir('conveyor-otlp-');
    homes.push(home);
    const failed = await startServerProcess(home.path, [], { OTEL_TRACES_EXPORTER: 'jaeger' }).catch((error: unknown) => String(error));
    expect(failed).toMatch(/exited with 1/);
    expect(failed).toMatch(/OTEL_TRACES_EXPORTER names an exporter Conveyor does not have: jaeger/);
  });
});

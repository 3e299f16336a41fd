import { describe, expect, it } from 'vitest';
import { toCliExport } from '../cli/output-format.ts';
import { exportedProduction } from './export-reply.ts';

describe('reading GET /export', () => {
  it("reads IoP's xmltodict form into the structured one, so cli -e prints the spec's CLI export", () => {
    const iopForm = {
      'Demo.P': {
        '@Name': 'Demo.P',
        '@TestingEnabled': 'false',
        '@LogGeneralTraceEvents': 'false',
        Description: '',
        ActorPoolSize: '2',
        Item: {
          '@Name': 'A',
          '@Category': 'cat',
          '@ClassName': 'Python.A',
          '@PoolSize': '1',
          '@Enabled': 'true',
          Setting: { '@Target': 'Host', '@Name': 'x', '#text': '1' },
        },
      },
    };
    const read = exportedProduction(iopForm);
    expect(read.items[0]).toMatchObject({
      name: 'A',
      category: 'cat',
      classname: 'Python.A',
      enabled: true,
      settings: [{ target: 'Host', name: 'x', value: '1' }],
    });
    expect(toCliExport(read).Production.Item).toEqual([
      {
        '@Name': 'A',
        '@Category': 'cat',
        '@ClassName': 'Python.A',
        '@PoolSize': '1',
        '@Enabled': 'true',
        '@Foreground': 'false',
        '@Comment': '',
        '@LogTraceEvents': 'false',
        '@Schedule': '',
        Setting: [{ '@Target': 'Host', '@Name': 'x', '#text': '1' }],
      },
    ]);
  });

  it('keeps production-level settings from either form into the CLI export, and leaves them out when there are none', () => {
    const iopForm = {
      'Demo.P': {
        '@Name': 'Demo.P',
        '@TestingEnabled': 'false',
        '@LogGeneralTraceEvents': 'false',
        Description: '',
        ActorPoolSize: '2',
        Setting: { '@Name': 'ShutdownTimeout', '#text': '300' },
      },
    };
    const read = exportedProduction(iopForm);
    expect(read.settings).toEqual([{ name: 'ShutdownTimeout', value: '300' }]);
    expect(toCliExport(read).Production.Setting).toEqual([{ '@Name': 'ShutdownTimeout', '#text': '300' }]);
    const structured = { name: 'P', description: '', test_enabled: false, log_trace_events: false, actor_pool_size: 2, items: [] };
    expect(toCliExport(exportedProduction({ ...structured, settings: [{ name: 'UpdateTimeout', value: '30' }] })).Production.Setting).toEqual([
      { '@Name': 'UpdateTimeout', '#text': '30' },
    ]);
    expect(toCliExport(exportedProduction(structured)).Production).not.toHaveProperty('Setting');
  });

  it("passes the spec's structured form through", () => {
    const structured = { name: 'P', description: '', test_enabled: false, log_trace_events: false, actor_pool_size: 2, items: [] };
    expect(exportedProduction(structured)).toBe(structured);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';

let iop: Harness;
beforeAll(async () => {
  iop = await createHarness({ exportFormat: 'iop' });
});
afterAll(async () => iop.close());

describe('GET /export with exportFormat: iop', () => {
  it("answers IoP's xmltodict form keyed by the production name", async () => {
    const r = await iop.app.inject({ method: 'GET', url: '/api/iop/export?production=Demo.Production', headers: iop.auth('viewer') });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      'Demo.Production': {
        '@Name': 'Demo.Production',
        '@TestingEnabled': 'true',
        '@LogGeneralTraceEvents': 'false',
        Description: 'demo',
        ActorPoolSize: '2',
        Item: [
          {
            '@Name': 'Python.FileOperation',
            '@Category': '',
            '@ClassName': 'Python.FileOperation',
            '@PoolSize': '1',
            '@Enabled': 'true',
            '@Foreground': 'false',
            '@Comment': '',
            '@LogTraceEvents': 'false',
            '@Schedule': '',
            Setting: { '@Target': 'Host', '@Name': 'path', '#text': '/tmp' },
          },
          {
            '@Name': 'Python.Router',
            '@Category': '',
            '@ClassName': 'Python.Router',
            '@PoolSize': '1',
            '@Enabled': 'false',
            '@Foreground': 'false',
            '@Comment': '',
            '@LogTraceEvents': 'false',
            '@Schedule': '',
          },
        ],
      },
    });
  });

  it('still fails as a spec route: 500 with the reason', async () => {
    const r = await iop.app.inject({ method: 'GET', url: '/api/iop/export?production=Nope', headers: iop.auth('viewer') });
    expect(r.statusCode).toBe(500);
    expect(r.json().error).toMatch(/Production Nope does not exist$/);
  });
});

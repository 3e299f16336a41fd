/** The fetch transport against a real `node:http` server: what goes on the wire and what failures say. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specRoutes } from '../core/contract/index.ts';
import { ConveyorClient, failureOf } from './api-client.ts';
import { createFetchTransport } from './fetch-transport.ts';

let server: Server;
let baseUrl: string;
const seen: Array<{ method: string; url: string; authorization?: string; body: string }> = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

function client(): ConveyorClient {
  return new ConveyorClient(createFetchTransport({ baseUrl, credentials: { username: 'ann', password: 'pw' } }), { namespace: 'OTHER' });
}

describe('fetch transport', () => {
  it('sends a declared route with Basic credentials and the namespace in the query and the body', async () => {
    answer = { status: 200, body: '{"status":"started","production":"P"}' };
    expect(await client().call(specRoutes.start, { body: { production: 'P' } })).toEqual({ status: 'started', production: 'P' });
    const request = seen.at(-1);
    expect(request).toMatchObject({ method: 'POST', url: '/api/iop/start?namespace=OTHER', authorization: `Basic ${btoa('ann:pw')}` });
    expect(JSON.parse(request?.body ?? '')).toEqual({ namespace: 'OTHER', production: 'P' });
  });

  it('keeps the status, code and details of a failure for the caller', async () => {
    answer = { status: 404, body: '{"error":"ERROR #LOOKUP_NOT_FOUND: No lookup table T","code":"ERR_LOOKUP_NOT_FOUND"}' };
    const error = await client()
      .status()
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({ message: 'ERROR #LOOKUP_NOT_FOUND: No lookup table T' });
    expect(failureOf(error)).toEqual({ status: 404, code: 'ERR_LOOKUP_NOT_FOUND' });
  });

  it('names the server when it cannot be reached', async () => {
    const lost = new ConveyorClient(createFetchTransport({ baseUrl: 'http://127.0.0.1:1' }), { namespace: 'USER' });
    await expect(lost.version()).rejects.toMatchObject({
      code: 'ERR_UNREACHABLE',
      message: expect.stringMatching(/^Cannot reach the server at http:\/\/127\.0\.0\.1:1: /),
    });
  });
});

/**
 * The bad-input suite (issue 15): every route of the server's own OpenAPI document, read at run time,
 * gets malformed and oversized bodies, wrong types, unknown and missing fields, hostile names, bad path
 * and query parameters, wrong credentials and a role too low. Each reply must be the documented
 * refusal (a JSON `error`, no stack trace, no server path); each route's bad inputs together must leave
 * the state as it was; the server must stay healthy, down to a real POST /test round trip at the end.
 *
 * One real server serves the whole suite. The figures (bad inputs tried, mishandled) are printed at the
 * end, and written as JSON to $BAD_INPUT_REPORT when it is set.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { casesOf, type BadCase } from './support/bad-cases.ts';
import { baselineOf, isKnown, item, production, requestClass } from './support/baselines.ts';
import { knownFinding } from './support/known-findings.ts';
import { routeKey, routesOf, type OpenApiDocument } from './support/openapi-routes.ts';
import { rawCall } from './support/raw-http.ts';
import { excerpt, judge } from './support/reply-judge.ts';
import { differences, takeSnapshot, type Snapshot } from './support/state-snapshot.ts';
import { bodyLimit, startWorld } from './support/suite-world.ts';

const world = await startWorld();
const document = await world.call('GET', '/api/iop/openapi.json');
if (document.status !== 200) throw new Error(`GET /api/iop/openapi.json answered ${document.status}`);
const routes = routesOf(document.json as OpenApiDocument);

interface Mishandled {
  id: string;
  kind: string;
  problems: string[];
  reply: string;
}
const tally = {
  tried: 0,
  mishandled: [] as Mishandled[],
  stateChanges: [] as string[],
  unknownRoutes: [] as string[],
  millisecondsPerRoute: {} as Record<string, number>,
};

afterAll(async () => {
  const byKind = new Map<string, number>();
  for (const entry of tally.mishandled) byKind.set(entry.kind, (byKind.get(entry.kind) ?? 0) + 1);
  const lines = [
    `bad-input suite: ${routes.length} operations of the OpenAPI document, ${tally.tried} bad inputs tried, ${tally.mishandled.length} mishandled, ${tally.stateChanges.length} routes changed state`,
    ...[...byKind].map(([kind, count]) => `  mishandled ${kind}: ${count}`),
    ...(tally.unknownRoutes.length ? [`  routes without a hand-written valid request (generic cases only): ${tally.unknownRoutes.join(', ')}`] : []),
  ];
  console.log(lines.join('\n'));
  if (process.env.BAD_INPUT_REPORT) writeFileSync(process.env.BAD_INPUT_REPORT, JSON.stringify({ operations: routes.length, ...tally }, null, 1));
  await world.close();
});

async function send(badCase: BadCase) {
  const { headers, localAddress } = world.headersOf(badCase.identity);
  return rawCall(world.server.url, {
    method: badCase.route.method,
    path: badCase.path,
    headers,
    ...(localAddress ? { localAddress } : {}),
    ...(badCase.body === undefined ? {} : { body: badCase.body }),
    ...(badCase.contentType === undefined ? {} : { contentType: badCase.contentType }),
  });
}

it('reads a document that lists the routes every part of the server adds', () => {
  const keys = routes.map(routeKey);
  for (const expected of [
    'POST /api/iop/test',
    'PUT /api/iop/migrate',
    'PUT /api/iop/users/{name}',
    'POST /api/atelier/v1/{namespace}/action/compile',
    'PUT /api/iop/lookups/{name}',
  ]) {
    expect(keys).toContain(expected);
  }
});

/** The per-route test that compares the state before and after the route's bad inputs. */
const stateCheck = 'leaves the state as it was and the server answering';

for (const route of routes) {
  const key = routeKey(route);
  if (!isKnown(route, world.state)) tally.unknownRoutes.push(key);
  const cases = casesOf(route, baselineOf(route, world.state), { bodyLimit });
  describe(key, () => {
    let before: Snapshot | undefined;
    const answeredYes: string[] = [];

    for (const badCase of cases) {
      const finding = knownFinding(badCase.id);
      const test = finding ? it.fails : it;
      test(`${badCase.id.slice(key.length + 3)}${finding ? ` (known: ${finding})` : ''}`, async () => {
        before ??= await takeSnapshot(world.server.url, world.headersOf('admin').headers, world.home);
        tally.tried++;
        const started = Date.now();
        let problems: string[];
        let shown: string;
        try {
          const reply = await send(badCase);
          problems = judge(badCase, reply, { paths: world.serverPaths });
          shown = excerpt(reply);
          if (reply.status < 300) answeredYes.push(badCase.id);
        } catch (error) {
          problems = [`no reply: ${(error as Error).message}`];
          shown = '';
        }
        tally.millisecondsPerRoute[key] = (tally.millisecondsPerRoute[key] ?? 0) + Date.now() - started;
        if (problems.length) tally.mishandled.push({ id: badCase.id, kind: badCase.kind, problems, reply: shown });
        expect(problems, shown).toEqual([]);
      });
    }

    const stateFinding = knownFinding(`${key} · ${stateCheck}`);
    (stateFinding ? it.fails : it)(`${stateCheck}${stateFinding ? ` (known: ${stateFinding})` : ''}`, async () => {
      const status = await world.call('GET', '/api/iop/status');
      expect(status.status, 'GET /status after the bad inputs').toBe(200);
      if (!before) return;
      const changed = differences(before, await takeSnapshot(world.server.url, world.headersOf('admin').headers, world.home));
      before = undefined;
      if (changed.length) {
        tally.stateChanges.push(`${key}: ${changed.join('; ')} (cases answered 2xx: ${answeredYes.join(', ') || 'none'})`);
        await world.restore();
      }
      expect(changed, `cases answered 2xx: ${answeredYes.join(', ')}`).toEqual([]);
    });
  });
}

it('still round-trips a real POST /test through the production after every bad input', async () => {
  const status = await world.call('GET', '/api/iop/status');
  expect(status.json).toEqual({ production, status: 'running' });
  const reply = await world.call('POST', '/api/iop/test', { target: item, classname: requestClass, body: { text: 'still here' } }, 'operator');
  expect(reply.status, reply.text).toBe(200);
  expect(JSON.parse((reply.json as { body: string }).body)).toMatchObject({ text: 'relay:still here' });
});

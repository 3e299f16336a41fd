/**
 * The route declarations as a whole: each route once, path parameters declared as used, requests
 * closed to unknown fields (the class-document API aside), and the reply shapes that carry the
 * engine's records equal to those records (a field missing from a declaration would be dropped from
 * every reply: the type checks below fail to compile, the value checks fail at run time).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Static, TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { ClassBinding } from '../components.ts';
import type { DtlDiagnostic, SchemaTreeNode } from '../../dtl/index.ts';
import type { MessageHeader, StoredMessage } from '../message.ts';
import type { TransformSummary } from '../../engine/namespace-operations.ts';
import type { QueueDepth } from '../../store/store.ts';
import * as families from './index.ts';
import type { RouteContract } from './route.ts';

/** Each assignable to the other: the same fields, with the same types. */
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Compile-time: the declared JSON of the engine's records is exactly those records.
const headerIsExact: Equal<families.MessageHeaderJson, MessageHeader> = true;
const storedIsExact: Equal<families.StoredMessageJson, StoredMessage> = true;
const bindingIsExact: Equal<families.ClassBindingJson, ClassBinding> = true;
const summaryIsExact: Equal<families.dtlRoutes.TransformSummaryJson, TransformSummary> = true;
const treeIsExact: Equal<families.SchemaFieldJson, SchemaTreeNode> = true;
const diagnosticFits: Equal<Omit<DtlDiagnostic, 'document'>, families.dtlRoutes.DiagnosticJson> = true;
const depthFits: Equal<Pick<families.ItemStateJson, 'queued' | 'delivered' | 'oldest'>, Omit<QueueDepth, 'target'>> = true;

function isRoute(value: unknown): value is RouteContract {
  return typeof value === 'object' && value !== null && 'method' in value && 'replies' in value;
}

function routesOf(family: object): RouteContract[] {
  return Object.values(family).filter(isRoute);
}

const routes = [
  families.specRoutes,
  families.componentRoutes,
  families.controlRoutes,
  families.definitionRoutes,
  families.documentRoutes,
  families.dtlRoutes,
  families.messageSearchRoutes,
  families.monitoringRoutes,
  families.monitorRoutes,
  families.portalRoutes,
  families.retentionRoutes,
  families.ruleRoutes,
  families.userRoutes,
].flatMap(routesOf);
const documentRoutes = new Set(routesOf(families.documentRoutes));

/** A checker that refuses any field a schema does not declare, the way the reply serializer drops it. */
function strictCheck(schema: TSchema) {
  const ajv = new Ajv2020({ strict: false });
  return ajv.compile(JSON.parse(JSON.stringify(schema)));
}

describe('route declarations', () => {
  it('hold every exact-type check', () => {
    expect([headerIsExact, storedIsExact, bindingIsExact, summaryIsExact, treeIsExact, diagnosticFits, depthFits]).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('declare each method and path once', () => {
    const keys = routes.map((route) => `${route.method} ${documentRoutes.has(route) ? 'docs' : 'api'}${route.path}`);
    expect(routes.length).toBeGreaterThan(50);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('declare exactly the path parameters their path uses', () => {
    for (const route of routes) {
      const used = [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]).sort();
      expect(Object.keys(route.params?.properties ?? {}).sort(), `${route.method} ${route.path}`).toEqual(used);
    }
  });

  it('close every query and object body to unknown fields, except the class-document API', () => {
    for (const route of routes) {
      if (documentRoutes.has(route)) continue;
      const where = `${route.method} ${route.path}`;
      if (route.method === 'GET' || route.method === 'DELETE')
        expect(JSON.parse(JSON.stringify(route.querystring ?? {})).additionalProperties, where).toBe(false);
      const body = JSON.parse(JSON.stringify(route.body ?? {})) as { type?: string; additionalProperties?: boolean };
      if (body.type === 'object') expect(body.additionalProperties, where).toBe(false);
    }
  });

  it('let every POST and PUT body that works in a namespace carry it (spec rule 3)', () => {
    // Users belong to the home, not to a namespace.
    const homeRoutes = new Set(routesOf(families.userRoutes));
    for (const route of routes) {
      if (!route.body || documentRoutes.has(route) || homeRoutes.has(route)) continue;
      expect(Object.keys(JSON.parse(JSON.stringify(route.body)).properties ?? {}), `${route.method} ${route.path}`).toContain('namespace');
    }
  });

  it('accept what the real IoP client sends to the spec routes (iop-reference §2.3, §2.6)', () => {
    const accepts = (schema: TSchema | undefined, value: unknown) => schema !== undefined && strictCheck(schema)(value);
    expect(accepts(families.specRoutes.start.body, {})).toBe(true);
    expect(accepts(families.specRoutes.start.body, { production: 'P' })).toBe(true);
    expect(accepts(families.specRoutes.setDefault.body, { production: 'P', namespace: 'USER' })).toBe(true);
    for (const body of ['text', { a: 1 }, null])
      expect(accepts(families.specRoutes.test.body, { target: '', classname: 'Ens.StringRequest', body, restart: true })).toBe(true);
    const migrate = {
      namespace: 'USER',
      package: 'python',
      remote_folder: '',
      body: [{ name: 'settings.py', data: '' }],
      settings_file: 'settings.py',
      strict_production_validation: false,
    };
    expect(accepts(families.specRoutes.migrate.body, migrate)).toBe(true);
    expect(accepts(families.specRoutes.log.querystring, { namespace: 'USER', top: 10 })).toBe(true);
    expect(accepts(families.specRoutes.start.body, { prodution: 'P' })).toBe(false);
  });

  it("declare every field of the engine's records the portal replies carry", () => {
    const header: MessageHeader = {
      id: 1,
      namespace: 'USER',
      sessionId: 1,
      parentId: null,
      correspondingId: 2,
      kind: 'request',
      source: 'A',
      target: 'B',
      responseRequired: true,
      status: 'completed',
      priority: 0,
      description: '',
      error: null,
      attempts: 1,
      createdAt: 1,
      updatedAt: 2,
      leaseOwner: null,
      leaseUntil: null,
    };
    const stored: StoredMessage = { ...header, body: { classname: 'm.C', encoding: 'json', data: '{}' } };
    const binding: ClassBinding = {
      name: 'Python.X',
      kind: 'operation',
      runtime: 'python',
      module: 'x',
      className: 'X',
      classpaths: ['/p'],
      settings: [{ name: 's', type: 'str', defaultValue: null, description: '' }],
      adapterType: null,
      updatedAt: 3,
    };
    const reply = <S extends TSchema>(schema: S, value: Static<S>) => strictCheck(schema)(value);
    expect(reply(families.portalRoutes.getMessage.replies[200].schema, stored)).toBe(true);
    expect(reply(families.portalRoutes.searchMessages.replies[200].schema, { messages: [header], next_before: null })).toBe(true);
    expect(reply(families.portalRoutes.classes.replies[200].schema, { classes: [binding] })).toBe(true);
    expect(strictCheck(families.portalRoutes.getMessage.replies[200].schema)({ ...stored, extra: 1 })).toBe(false);
  });
});

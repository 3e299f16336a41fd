/**
 * The two Atelier routes remote init (`iop -i`) calls, with the shapes of iop-reference §2.7:
 * `PUT {docs}/{ns}/doc/{name}` with `{enc, content: [lines]}`, and `POST {docs}/{ns}/action/compile`
 * with a JSON array of names, answered `{status: {errors, summary}, console, result}`.
 */
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import { formatTimestampMs } from '../core/time.ts';
import type { EngineApi } from '../engine/engine-api.ts';
import type { ClassDocumentStore } from './class-documents.ts';
import { bodyObject, describe } from './request-input.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';

const tag = 'Class documents';

function atelierReply(errors: string[], consoleLines: string[], result: Record<string, unknown>) {
  return {
    status: { errors: errors.map((error) => ({ error, code: 0, domain: 'Conveyor', id: '', params: [] })), summary: errors[0] ?? '' },
    console: consoleLines,
    result,
  };
}

async function pathNamespace(engine: EngineApi, params: unknown): Promise<string> {
  const namespace = (params as { namespace: string }).namespace;
  await engine.assertNamespace(namespace);
  return namespace;
}

/** The document text: `content` lines joined by newlines, or base64 chunks when `enc` is true. */
function documentText(body: Record<string, unknown>): string {
  const content = body.content;
  if (!Array.isArray(content) || content.some((line) => typeof line !== 'string')) {
    throw new ConveyorError('ERR_INVALID_INPUT', `content must be an array of strings (the lines of the document), not ${describe(content)}`);
  }
  const lines = content as string[];
  return body.enc === true ? Buffer.concat(lines.map((chunk) => Buffer.from(chunk, 'base64'))).toString('utf8') : lines.join('\n');
}

export function registerDocumentRoutes(scope: FastifyInstance, engine: EngineApi, documents: ClassDocumentStore, catalog: RouteCatalog | null): void {
  const namespaceParam = s.pathParameter('namespace', 'Namespace');
  const nameParam = s.pathParameter('name', 'Document name with extension, e.g. Demo.MyTransform.cls');
  const created = { description: 'Stored (a new document)', schema: s.atelierReplySchema };

  addRoute(
    scope,
    catalog,
    {
      method: 'PUT',
      url: '/:namespace/doc/:name',
      role: 'admin',
      spec: false,
      tag,
      summary: 'Upload (create or replace) a class document',
      parameters: [namespaceParam, nameParam, s.queryParameter('ignoreConflict', 'Accepted for compatibility; uploads always replace')],
      body: { schema: s.atelierPutBodySchema, required: true },
      responses: { 200: { description: 'Stored (replaced)', schema: s.atelierReplySchema }, 201: created },
    },
    async (request, reply) => {
      const namespace = await pathNamespace(engine, request.params);
      const { name } = request.params as { name: string };
      const stored = await documents.put(namespace, name, documentText(bodyObject(request)));
      const result = { name, db: namespace, ts: formatTimestampMs(stored.timestamp), cat: name.split('.').pop()?.toUpperCase() ?? '', status: '', enc: false, flags: 0, content: [] };
      return reply.code(stored.created ? 201 : 200).send(atelierReply([], [], result));
    },
  );

  addRoute(
    scope,
    catalog,
    {
      method: 'GET',
      url: '/:namespace/doc/:name',
      role: 'viewer',
      spec: false,
      tag,
      summary: 'Read a class document back',
      parameters: [namespaceParam, nameParam],
      responses: s.ok('The document, as lines', s.atelierReplySchema),
    },
    async (request) => {
      const namespace = await pathNamespace(engine, request.params);
      const { name } = request.params as { name: string };
      const text = await documents.get(namespace, name);
      return atelierReply([], [], { name, db: namespace, cat: name.split('.').pop()?.toUpperCase() ?? '', enc: false, content: text.split('\n') });
    },
  );

  addRoute(
    scope,
    catalog,
    {
      method: 'POST',
      url: '/:namespace/action/compile',
      role: 'admin',
      spec: false,
      tag,
      summary: 'Compile uploaded documents: DTL transform classes become transforms, other classes are kept',
      parameters: [namespaceParam, s.queryParameter('flags', 'Accepted for compatibility (e.g. cuk)')],
      body: { schema: s.arrayOf(s.str), required: true, description: 'The document names to compile' },
      responses: s.ok('Compile report; errors in status.errors', s.atelierReplySchema),
    },
    async (request) => {
      const namespace = await pathNamespace(engine, request.params);
      const names = request.body;
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) {
        throw new ConveyorError('ERR_INVALID_INPUT', `The compile body must be a JSON array of document names, not ${describe(names)}`);
      }
      const outcome = await documents.compile(namespace, names as string[]);
      return atelierReply(outcome.errors, outcome.console, { content: [] });
    },
  );
}

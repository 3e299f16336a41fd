/**
 * The two Atelier routes remote init (`iop -i`) calls, with the shapes of iop-reference §2.7:
 * `PUT {docs}/{ns}/doc/{name}` with `{enc, content: [lines]}`, and `POST {docs}/{ns}/action/compile`
 * with a JSON array of names, answered `{status: {errors, summary}, console, result}`.
 */
import type { FastifyInstance } from 'fastify';
import * as contract from '../core/contract/document-routes.ts';
import { formatTimestampMs } from '../core/time.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import type { ClassDocumentStore } from './class-documents.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

function atelierReply(errors: string[], consoleLines: string[], result: Record<string, unknown>) {
  return {
    status: { errors: errors.map((error) => ({ error, code: 0, domain: 'Conveyor', id: '', params: [] })), summary: errors[0] ?? '' },
    console: consoleLines,
    result,
  };
}

/** The namespace of the path, checked (an unknown one is an error naming it). */
async function pathNamespace(engine: EngineOperations, params: { namespace: string }): Promise<string> {
  return (await engine.namespace(params.namespace)).name;
}

/** The document text: `content` lines joined by newlines, or base64 chunks when `enc` is true. */
function documentText(body: { enc?: boolean; content: string[] }): string {
  return body.enc === true ? Buffer.concat(body.content.map((chunk) => Buffer.from(chunk, 'base64'))).toString('utf8') : body.content.join('\n');
}

function category(name: string): string {
  return name.split('.').pop()?.toUpperCase() ?? '';
}

export function registerDocumentRoutes(root: FastifyInstance, engine: EngineOperations, documents: ClassDocumentStore, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, contract.putDocument, async (request, reply) => {
    const namespace = await pathNamespace(engine, request.params);
    const { name } = request.params;
    const stored = await documents.put(namespace, name, documentText(request.body));
    const result = { name, db: namespace, ts: formatTimestampMs(stored.timestamp), cat: category(name), status: '', enc: false, flags: 0, content: [] };
    return reply.code(stored.created ? 201 : 200).send(atelierReply([], [], result));
  });

  serve(scope, catalog, contract.getDocument, async (request) => {
    const namespace = await pathNamespace(engine, request.params);
    const { name } = request.params;
    const text = await documents.get(namespace, name);
    return atelierReply([], [], { name, db: namespace, cat: category(name), enc: false, content: text.split('\n') });
  });

  serve(scope, catalog, contract.compileDocuments, async (request) => {
    const namespace = await pathNamespace(engine, request.params);
    const outcome = await documents.compile(namespace, request.body);
    return atelierReply(outcome.errors, outcome.console, { content: [] });
  });
}

/**
 * The DTL service the portal's routes call, built on the store (schemas, transforms with history,
 * lookup tables) and src/dtl (parse, validate, compile, run, schema trees). A transform's doc types
 * name schemas of the namespace; their paths are checked against them (warnings), so the editor and
 * the compile button report the same problems.
 */
import { readFile } from 'node:fs/promises';
import { ConveyorError, isConveyorError } from '../core/errors.ts';
import { checkPathsAgainstSchemas, compileTransform, parseTransform, schemaToTree, validateTransform, type DtlDiagnostic, type TransformNode } from '../dtl/index.ts';
import type { Store, StoredTransform } from '../store/store.ts';
import type { DtlService, PortalDiagnostic, TransformRunResult, TransformSummary, TransformVersion } from './portal-engine.ts';

function positioned(diagnostics: DtlDiagnostic[]): PortalDiagnostic[] {
  return diagnostics.map(({ line, column, severity, message }) => ({ line, column, severity, message }));
}

/** The diagnostics a failed parse carries, or one at 1:1 with its message. */
function parseFailure(error: unknown): PortalDiagnostic[] {
  const details = isConveyorError(error) ? (error.details as { diagnostics?: DtlDiagnostic[] } | undefined) : undefined;
  if (details?.diagnostics?.length) return positioned(details.diagnostics);
  const position = (error as { position?: { line: number; column: number } }).position ?? { line: 1, column: 1 };
  return [{ ...position, severity: 'error', message: error instanceof Error ? error.message : String(error) }];
}

function versionOf(stored: StoredTransform): TransformVersion {
  return { name: stored.name, source: stored.source, version: stored.version, updatedAt: stored.updatedAt };
}

export function createDtlService(store: Store): DtlService {
  async function schemaDocument(namespace: string, name: string): Promise<unknown | undefined> {
    if (!name) return undefined;
    const stored = await store.schemas.get(namespace, name);
    if (!stored) return undefined;
    try {
      return JSON.parse(stored.schema);
    } catch {
      return undefined;
    }
  }

  async function check(namespace: string, name: string, source: string): Promise<{ ast: TransformNode | null; diagnostics: PortalDiagnostic[] }> {
    let ast: TransformNode;
    try {
      ast = parseTransform(source, name);
    } catch (error) {
      return { ast: null, diagnostics: parseFailure(error) };
    }
    const diagnostics = validateTransform(ast);
    const [sourceSchema, targetSchema] = await Promise.all([schemaDocument(namespace, ast.sourceDocType), schemaDocument(namespace, ast.targetDocType)]);
    diagnostics.push(...checkPathsAgainstSchemas(ast, { source: sourceSchema, target: targetSchema }));
    return { ast, diagnostics: positioned(diagnostics).sort((a, b) => a.line - b.line || a.column - b.column) };
  }

  async function requireTransform(namespace: string, name: string, version?: number): Promise<StoredTransform> {
    const stored = await store.transforms.get(namespace, name, version);
    if (!stored) throw new ConveyorError('ERR_TRANSFORM_NOT_FOUND', version === undefined ? `No transform named ${name}` : `Transform ${name} has no version ${version}`);
    return stored;
  }

  async function lookupTables(namespace: string): Promise<Map<string, Record<string, string>>> {
    const names = await store.lookups.tables(namespace);
    const tables = await Promise.all(names.map(async (table) => [table, (await store.lookups.get(namespace, table)) ?? {}] as const));
    return new Map(tables);
  }

  return {
    async listTransforms(namespace) {
      const stored = await store.transforms.list(namespace);
      return stored.map((transform): TransformSummary => {
        let header = { sourceClass: '', targetClass: '', sourceDocType: '', targetDocType: '' };
        try {
          const { sourceClass, targetClass, sourceDocType, targetDocType } = parseTransform(transform.source, transform.name);
          header = { sourceClass, targetClass, sourceDocType, targetDocType };
        } catch {
          // A stored document that no longer parses is still listed, so it can be opened and fixed.
        }
        return { name: transform.name, ...header, version: transform.version, updatedAt: transform.updatedAt };
      });
    },
    getTransform: async (namespace, name, version) => versionOf(await requireTransform(namespace, name, version)),
    transformHistory: async (namespace, name) => (await store.transforms.history(namespace, name)).map(versionOf),
    async putTransform(namespace, name, source) {
      if (!/^[A-Za-z%][\w.%]*$/.test(name)) throw new ConveyorError('ERR_INVALID_INPUT', `Invalid transform name ${JSON.stringify(name)}: use a class name such as Demo.OrderToShipment`);
      const { diagnostics } = await check(namespace, name, source);
      const errors = diagnostics.filter((d) => d.severity === 'error');
      if (errors.length > 0) {
        const first = errors[0]!;
        throw new ConveyorError('ERR_DTL', `${name} has ${errors.length} error(s); first at ${first.line}:${first.column}: ${first.message}`, { details: { diagnostics } });
      }
      return versionOf(await store.transforms.put(namespace, name, source));
    },
    async deleteTransform(namespace, name) {
      await requireTransform(namespace, name);
      await store.transforms.delete(namespace, name);
    },
    compileTransform: async (namespace, source) => (await check(namespace, 'transform', source)).diagnostics,
    async runTransform(namespace, transform, input): Promise<TransformRunResult> {
      const name = transform.name ?? 'transform';
      const source = transform.source ?? (await requireTransform(namespace, name)).source;
      const { ast, diagnostics } = await check(namespace, name, source);
      const errors = diagnostics.filter((d) => d.severity === 'error');
      if (!ast || errors.length > 0) {
        return { target: null, targetClass: '', status: 'error', errors: errors.map((d) => `${d.line}:${d.column}: ${d.message}`), trace: [] };
      }
      const tables = await lookupTables(namespace);
      const compiled = compileTransform(ast);
      const result = await compiled.run(input.json as never, {
        host: {
          lookup: (table, key) => tables.get(table)?.[key],
          subtransform: () => undefined,
        },
      });
      return {
        target: result.target,
        targetClass: result.targetClassname,
        status: result.status,
        errors: result.errors.map((error) => `${error.line}:${error.column}: ${error.message}`),
        trace: result.trace.map((entry) => `${entry.line}: ${entry.text}`),
      };
    },

    async listSchemas(namespace) {
      return (await store.schemas.list(namespace)).map(({ name, category, updatedAt }) => ({ name, category, updatedAt }));
    },
    async getSchema(namespace, name) {
      const stored = await store.schemas.get(namespace, name);
      if (!stored) throw new ConveyorError('ERR_SCHEMA_NOT_FOUND', `No schema named ${name}`);
      return { name: stored.name, category: stored.category, schema: JSON.parse(stored.schema) as unknown };
    },
    async schemaTree(namespace, name) {
      const stored = await store.schemas.get(namespace, name);
      if (!stored) throw new ConveyorError('ERR_SCHEMA_NOT_FOUND', `No schema named ${name}`);
      return schemaToTree(stored.schema);
    },
    async importSchema(namespace, request) {
      let document = request.schema;
      if (request.path !== undefined) {
        let text: string;
        try {
          text = await readFile(request.path, 'utf8');
        } catch (error) {
          throw new ConveyorError('ERR_INVALID_INPUT', `Cannot read the schema file ${request.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        try {
          document = JSON.parse(text);
        } catch (error) {
          throw new ConveyorError('ERR_INVALID_INPUT', `The schema file ${request.path} is not valid JSON: ${(error as Error).message}`);
        }
      }
      // Building the tree checks the document the way the editor will read it ($ref, allOf, …).
      schemaToTree(document);
      // The spec: the schema "is then selectable in a DTL transformation under the given name".
      await store.schemas.put(namespace, { name: request.name, category: request.package, schema: JSON.stringify(document) });
    },
    async deleteSchema(namespace, name) {
      if (!(await store.schemas.get(namespace, name))) throw new ConveyorError('ERR_SCHEMA_NOT_FOUND', `No schema named ${name}`);
      await store.schemas.delete(namespace, name);
    },

    lookupTables: (namespace) => store.lookups.tables(namespace),
    async getLookup(namespace, table) {
      const entries = await store.lookups.get(namespace, table);
      if (!entries) throw new ConveyorError('ERR_LOOKUP_NOT_FOUND', `No lookup table named ${table}`);
      return entries;
    },
    putLookup: (namespace, table, entries) => store.lookups.put(namespace, table, entries),
    async deleteLookup(namespace, table) {
      if (!(await store.lookups.get(namespace, table))) throw new ConveyorError('ERR_LOOKUP_NOT_FOUND', `No lookup table named ${table}`);
      await store.lookups.delete(namespace, table);
    },
  };
}

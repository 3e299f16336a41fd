/**
 * DTL in a namespace: transforms stored with their versions and compiled once per version, JSON
 * schemas as doc types (the spec's import operation), lookup tables, and runs of a transform on a
 * message for the portal, the API and the transform process. The host a run gets reads lookup
 * tables from memory (loaded from the store once per namespace, refreshed on change), resolves
 * subtransforms from the store and runs Python through dtl-python.ts.
 */
import { readFile } from 'node:fs/promises';
import { ConveyorError, errorText, isConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import {
  checkPathsAgainstSchemas,
  compileTransform,
  formatDiagnostic,
  parseTransform,
  schemaToTree,
  TransformCache,
  validateTransform,
  type CompiledTransform,
  type DtlDiagnostic,
  type DtlHost,
  type DtlResult,
  type JsonValue,
  type SchemaTreeNode,
  type TransformNode,
} from '../dtl/index.ts';
import type { Store, StoredTransform } from '../store/store.ts';
import { pythonRunner } from './dtl-python.ts';

export interface TransformSummary {
  name: string;
  sourceClass: string;
  targetClass: string;
  sourceDocType: string;
  targetDocType: string;
  version: number;
  updatedAt: number;
}

export interface TransformRunResult {
  target: unknown;
  targetClass: string;
  status: 'ok' | 'error';
  errors: string[];
  trace: string[];
}

export class DtlService {
  private readonly cache = new TransformCache();
  private readonly loadedLookups = new Map<string, Map<string, Record<string, string>>>();
  private readonly runPython: ReturnType<typeof pythonRunner>;

  constructor(
    private readonly store: Store,
    interpreter?: string,
  ) {
    this.runPython = pythonRunner(interpreter);
  }

  async listTransforms(namespace: string): Promise<TransformSummary[]> {
    const summaries: TransformSummary[] = [];
    for (const stored of await this.store.transforms.list(namespace)) {
      let ast: TransformNode | null = null;
      try {
        ast = this.compiled(namespace, stored).ast;
      } catch {
        // A stored document that no longer parses is listed with what is known of it.
      }
      summaries.push({
        name: stored.name,
        sourceClass: ast?.sourceClass ?? '',
        targetClass: ast?.targetClass ?? '',
        sourceDocType: ast?.sourceDocType ?? '',
        targetDocType: ast?.targetDocType ?? '',
        version: stored.version,
        updatedAt: stored.updatedAt,
      });
    }
    return summaries;
  }

  async getTransform(namespace: string, name: string, version?: number): Promise<StoredTransform> {
    const stored = await this.store.transforms.get(namespace, name, version);
    if (!stored) {
      throw new ConveyorError('ERR_TRANSFORM_NOT_FOUND', `Transform ${name}${version === undefined ? '' : ` version ${version}`} does not exist in namespace ${namespace}`);
    }
    return stored;
  }

  transformHistory(namespace: string, name: string): Promise<StoredTransform[]> {
    return this.store.transforms.history(namespace, name);
  }

  /** Validates, then stores a new version; a document with errors is refused with its diagnostics. */
  async putTransform(namespace: string, name: string, source: string): Promise<StoredTransform> {
    const errors = (await this.compileTransform(namespace, source, name)).filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      throw new ConveyorError('ERR_DTL', `Transform ${name} has errors: ${errors.map(formatDiagnostic).join('; ')}`, { details: { diagnostics: errors } });
    }
    const stored = await this.store.transforms.put(namespace, name, source);
    this.cache.invalidate(name, namespace);
    return stored;
  }

  async deleteTransform(namespace: string, name: string): Promise<void> {
    await this.getTransform(namespace, name);
    await this.store.transforms.delete(namespace, name);
    this.cache.invalidate(name, namespace);
  }

  /** Parses and validates, also against the schemas of the doc types; never throws for a bad document. */
  async compileTransform(namespace: string, source: string, documentName = 'transform'): Promise<DtlDiagnostic[]> {
    let ast: TransformNode;
    try {
      ast = parseTransform(source, documentName);
    } catch (error) {
      const diagnostics = (error as ConveyorError).details as { diagnostics?: DtlDiagnostic[] } | undefined;
      if (isConveyorError(error, 'ERR_DTL') && diagnostics?.diagnostics) return diagnostics.diagnostics;
      return [{ document: documentName, line: 1, column: 1, severity: 'error', message: errorText(error) }];
    }
    const diagnostics = validateTransform(ast);
    const schemas = {
      source: await this.docTypeSchema(namespace, ast.sourceDocType),
      target: await this.docTypeSchema(namespace, ast.targetDocType),
    };
    if (schemas.source !== undefined || schemas.target !== undefined) diagnostics.push(...checkPathsAgainstSchemas(ast, schemas));
    return diagnostics;
  }

  /** Runs a stored transform (by name) or a document (source) on a JSON source. */
  async runTransform(namespace: string, transform: { name?: string; source?: string }, input: { classname?: string; json: unknown }): Promise<TransformRunResult> {
    let compiled: CompiledTransform;
    if (transform.source !== undefined) compiled = compileTransform(parseTransform(transform.source, 'transform'));
    else if (transform.name) compiled = this.compiled(namespace, await this.getTransform(namespace, transform.name));
    else throw new ConveyorError('ERR_INVALID_INPUT', 'Give the name of a stored transform or a transform document');
    const result = await this.execute(namespace, compiled, input.json as JsonValue);
    return {
      target: result.target,
      targetClass: result.targetClassname,
      status: result.status,
      errors: result.errors.map((e) => `${e.document}:${e.line}:${e.column}: ${e.message}`),
      trace: result.trace.map((t) => t.text),
    };
  }

  /** Applies a stored transform to a message body and returns the target as a message body. */
  async transformMessage(namespace: string, name: string, body: MessageBody): Promise<MessageBody> {
    const compiled = this.compiled(namespace, await this.getTransform(namespace, name));
    const result = await this.execute(namespace, compiled, sourceDocument(body));
    if (result.status === 'error') {
      throw new ConveyorError('ERR_DTL', `Transform ${name} failed: ${result.errors.map((e) => `${e.line}:${e.column}: ${e.message}`).join('; ')}`);
    }
    const classname = result.targetClassname || compiled.ast.targetClass;
    if (classname.startsWith('Ens.') || classname.startsWith('EnsLib.')) {
      return { classname, encoding: 'native', data: JSON.stringify(result.target) };
    }
    return { classname, encoding: 'json', data: JSON.stringify(result.target) };
  }

  async listSchemas(namespace: string): Promise<Array<{ name: string; category: string; updatedAt: number }>> {
    return (await this.store.schemas.list(namespace)).map(({ name, category, updatedAt }) => ({ name, category, updatedAt }));
  }

  async getSchema(namespace: string, name: string): Promise<{ name: string; category: string; schema: unknown }> {
    const stored = await this.store.schemas.get(namespace, name);
    if (!stored) throw new ConveyorError('ERR_SCHEMA_NOT_FOUND', `Schema ${name} does not exist in namespace ${namespace}`);
    return { name: stored.name, category: stored.category, schema: JSON.parse(stored.schema) as unknown };
  }

  async schemaTree(namespace: string, name: string): Promise<SchemaTreeNode[]> {
    return schemaToTree((await this.getSchema(namespace, name)).schema);
  }

  /** The spec's import operation: a JSON schema file (or document), a package, a schema name. */
  async importSchema(namespace: string, request: { path?: string; schema?: unknown; package: string; name: string }): Promise<void> {
    if (!request.name.trim()) throw new ConveyorError('ERR_INVALID_INPUT', 'The schema needs a name');
    let schema = request.schema;
    if (request.path !== undefined) {
      let text: string;
      try {
        text = await readFile(request.path, 'utf8');
      } catch (error) {
        throw new ConveyorError('ERR_INVALID_INPUT', `Cannot read the schema file ${request.path}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`);
      }
      try {
        schema = JSON.parse(text) as unknown;
      } catch (error) {
        throw new ConveyorError('ERR_INVALID_INPUT', `The schema file ${request.path} is not valid JSON: ${errorText(error)}`);
      }
    }
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new ConveyorError('ERR_INVALID_INPUT', `The schema ${request.name} must be a JSON object`);
    }
    schemaToTree(schema); // refuses a schema whose $refs cannot be resolved
    await this.store.schemas.put(namespace, { name: request.name, category: request.package, schema: JSON.stringify(schema) });
  }

  async deleteSchema(namespace: string, name: string): Promise<void> {
    await this.getSchema(namespace, name);
    await this.store.schemas.delete(namespace, name);
  }

  lookupTables(namespace: string): Promise<string[]> {
    return this.store.lookups.tables(namespace);
  }

  async getLookup(namespace: string, table: string): Promise<Record<string, string>> {
    const entries = await this.store.lookups.get(namespace, table);
    if (!entries) throw new ConveyorError('ERR_LOOKUP_NOT_FOUND', `Lookup table ${table} does not exist in namespace ${namespace}`);
    return entries;
  }

  async putLookup(namespace: string, table: string, entries: Record<string, string>): Promise<void> {
    await this.store.lookups.put(namespace, table, entries);
    this.loadedLookups.delete(namespace);
  }

  async deleteLookup(namespace: string, table: string): Promise<void> {
    await this.getLookup(namespace, table);
    await this.store.lookups.delete(namespace, table);
    this.loadedLookups.delete(namespace);
  }

  private compiled(namespace: string, stored: StoredTransform): CompiledTransform {
    return this.cache.getOrCompile({ namespace, name: stored.name, version: stored.version }, stored.source);
  }

  private async execute(namespace: string, compiled: CompiledTransform, source: JsonValue): Promise<DtlResult> {
    return compiled.run(source, { host: await this.host(namespace, compiled) });
  }

  private async host(namespace: string, compiled: CompiledTransform): Promise<DtlHost> {
    let tables = this.loadedLookups.get(namespace);
    if (!tables) {
      tables = new Map();
      for (const table of await this.store.lookups.tables(namespace)) tables.set(table, (await this.store.lookups.get(namespace, table)) ?? {});
      this.loadedLookups.set(namespace, tables);
    }
    const loaded = tables;
    const subtransforms = new Map<string, CompiledTransform>();
    const pending = [...compiled.dependencies];
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (subtransforms.has(name)) continue;
      const stored = await this.store.transforms.get(namespace, name);
      if (!stored) continue;
      const dependency = this.compiled(namespace, stored);
      subtransforms.set(name, dependency);
      pending.push(...dependency.dependencies);
    }
    return {
      lookup: (table, key) => loaded.get(table)?.[key],
      subtransform: (name) => subtransforms.get(name),
      runPython: this.runPython,
    };
  }

  private async docTypeSchema(namespace: string, docType: string): Promise<unknown> {
    if (!docType) return undefined;
    const stored = await this.store.schemas.get(namespace, docType);
    return stored ? (JSON.parse(stored.schema) as unknown) : undefined;
  }
}

/** The JSON document a message body offers a transform as its source. */
export function sourceDocument(body: MessageBody): JsonValue {
  if (body.encoding === 'empty' || body.data === '') return {};
  if (body.encoding === 'pickle') throw new ConveyorError('ERR_DTL', `A pickled ${body.classname} cannot be transformed; send it as JSON`);
  return JSON.parse(body.data) as JsonValue;
}


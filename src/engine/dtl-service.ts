/**
 * DTL in one namespace: transforms stored with their versions and compiled once per version, JSON
 * schemas as doc types (the spec's import operation), lookup tables, and runs of a transform on a
 * message for the portal, the API and the transform process. The host a run gets reads lookup
 * tables from memory (loaded from the store once, refreshed on change), resolves subtransforms
 * from the store and runs Python through the runner the engine gives it.
 */
import { readFile } from 'node:fs/promises';
import { ConveyorError, errorText, isConveyorError } from '../core/errors.ts';
import { jsonErrorPosition } from '../core/json-error-position.ts';
import type { MessageBody } from '../core/message.ts';
import { checkName } from '../core/names.ts';
import { transformNameProblem } from '../dtl/transform-name.ts';
import { checkLookupName } from '../dtl/lookup-table-name.ts';
import {
  checkPathsAgainstSchemas,
  checkReferences,
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
  type RunOptions,
  type JsonValue,
  type SchemaTreeNode,
  type TransformNode,
} from '../dtl/index.ts';
import type { Store, StoredTransform } from '../store/store.ts';
import type { DtlOperations, SchemaSummary, TransformRunInput, TransformRunResult, TransformSummary } from './namespace-operations.ts';
import { defaultSqlHost, SqlHosts, type SqlHostSource } from './sql-hosts/sql-hosts.ts';

export type { TransformRunInput, TransformRunResult, TransformSummary };

export class DtlService implements DtlOperations {
  /** The namespace's lookup tables, loaded on the first run that needs them; dropped on change. */
  private loadedLookups: Map<string, Record<string, string>> | null = null;

  /** `cache` is shared by the namespaces of the engine (it keys entries by namespace). */
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly runPython: DtlHost['runPython'],
    private readonly cache: TransformCache = new TransformCache(),
    /** The namespace's SQL hosts for `<sql>` (none configured by default). */
    private readonly sqlHosts: SqlHostSource = new SqlHosts().forNamespace(namespace),
  ) {}

  async listTransforms(): Promise<TransformSummary[]> {
    const summaries: TransformSummary[] = [];
    for (const stored of await this.store.transforms.list(this.namespace)) {
      let ast: TransformNode | null = null;
      try {
        ast = this.compiled(stored).ast;
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

  async getTransform(name: string, version?: number): Promise<StoredTransform> {
    const stored = await this.store.transforms.get(this.namespace, name, version);
    if (!stored) {
      throw new ConveyorError(
        'ERR_TRANSFORM_NOT_FOUND',
        `Transform ${name}${version === undefined ? '' : ` version ${version}`} does not exist in namespace ${this.namespace}`,
      );
    }
    return stored;
  }

  transformHistory(name: string): Promise<StoredTransform[]> {
    return this.store.transforms.history(this.namespace, name);
  }

  /**
   * Validates, then stores a new version; a document with errors is refused with its diagnostics.
   * The name is the transform's class name: a name that is not one (spaces…), or a class document
   * whose class is another, is refused before anything is stored.
   */
  async putTransform(name: string, source: string): Promise<StoredTransform> {
    const problem = transformNameProblem(name);
    if (problem) throw new ConveyorError('ERR_INVALID_INPUT', `Invalid transform name: ${problem}`);
    const className = declaredClassName(source);
    if (className !== null && className !== name) {
      throw new ConveyorError(
        'ERR_INVALID_INPUT',
        `The document is the class ${className} but is being stored as ${name}: store it under ${className}, or rename the class in the document`,
      );
    }
    const errors = (await this.compileTransform(source, name)).filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      throw new ConveyorError('ERR_DTL', `Transform ${name} has errors: ${errors.map(formatDiagnostic).join('; ')}`, { details: { diagnostics: errors } });
    }
    const stored = await this.store.transforms.put(this.namespace, name, source);
    this.cache.invalidate(name, this.namespace);
    return stored;
  }

  async deleteTransform(name: string): Promise<void> {
    await this.getTransform(name);
    await this.store.transforms.delete(this.namespace, name);
    this.cache.invalidate(name, this.namespace);
  }

  /** Parses and validates, also against the schemas of the doc types; never throws for a bad document. */
  async compileTransform(source: string, documentName = 'transform'): Promise<DtlDiagnostic[]> {
    let ast: TransformNode;
    try {
      ast = parseTransform(source, documentName);
    } catch (error) {
      const diagnostics = (error as ConveyorError).details as { diagnostics?: DtlDiagnostic[] } | undefined;
      if (isConveyorError(error, 'ERR_DTL') && diagnostics?.diagnostics) return diagnostics.diagnostics;
      return [{ document: documentName, line: 1, column: 1, severity: 'error', message: errorText(error) }];
    }
    const diagnostics = validateTransform(ast);
    const stored = new Set((await this.store.transforms.list(this.namespace)).map((t) => t.name));
    // A transform may call itself (recursion on nested documents): the document being checked counts as stored.
    if (ast.className) stored.add(ast.className);
    diagnostics.push(...checkReferences(ast, { namespace: this.namespace, hasTransform: (name) => stored.has(name) }));
    const schemas = {
      source: await this.docTypeSchema(ast.sourceDocType),
      target: await this.docTypeSchema(ast.targetDocType),
    };
    for (const side of ['source', 'target'] as const) {
      const docType = side === 'source' ? ast.sourceDocType : ast.targetDocType;
      if (docType !== '' && schemas[side] === undefined && ast[`${side}Class`] === 'IOP.Message') {
        diagnostics.push({
          document: ast.document,
          ...(ast.attrPos[`${side}DocType`] ?? ast.pos),
          severity: 'warning',
          message: `${side}DocType ${docType} is not a schema of namespace ${this.namespace}: its ${side} paths are not checked (import the schema to check them)`,
        });
      }
    }
    if (schemas.source !== undefined || schemas.target !== undefined) diagnostics.push(...checkPathsAgainstSchemas(ast, schemas));
    return diagnostics;
  }

  /**
   * Runs a stored transform (by name) or a document (source) on a JSON source, with the caller's
   * target (create="existing" only), aux and parameters for this run; `<sql>` uses the SQL host
   * `input.sqlHost` (default `default`).
   */
  async runTransform(transform: { name?: string; source?: string }, input: TransformRunInput): Promise<TransformRunResult> {
    let compiled: CompiledTransform;
    if (transform.source !== undefined) compiled = compileTransform(parseTransform(transform.source, 'transform'));
    else if (transform.name) compiled = this.compiled(await this.getTransform(transform.name));
    else throw new ConveyorError('ERR_INVALID_INPUT', 'Give the name of a stored transform or a transform document');
    if (input.target !== undefined && compiled.create !== 'existing') {
      throw new ConveyorError(
        'ERR_INVALID_INPUT',
        `target (the initial target) is only used by create="existing" transforms; ${compiled.name} is create="${compiled.create}" and builds its own`,
      );
    }
    const result = await this.execute(compiled, input.json as JsonValue, input.sqlHost, {
      ...(input.target === undefined ? {} : { target: input.target as JsonValue }),
      ...(input.aux === undefined ? {} : { aux: input.aux as JsonValue }),
      ...(input.parameters === undefined ? {} : { parameters: input.parameters }),
    });
    return {
      target: result.target,
      targetClass: result.targetClassname,
      status: result.status,
      errors: result.errors.map((e) => `${e.document}:${e.line}:${e.column}: ${e.message}`),
      trace: result.trace.map((t) => t.text),
      errorEntries: result.errors.map(({ kind, message, line, column, action, position }) => ({
        kind,
        message,
        line,
        column,
        action: action ?? '',
        position: position ?? '',
      })),
      traceEntries: result.trace.map(({ category, action, position, value, text, line, level }) => ({
        category,
        action,
        position,
        value,
        text,
        line,
        ...(level ? { level } : {}),
      })),
    };
  }

  /**
   * Applies a stored transform to a message body and returns the target as a message body; `<sql>`
   * uses the SQL host `options.sqlHost` (default `default`); `options.aux` is the transform's `aux`.
   */
  async transformMessage(name: string, body: MessageBody, options: { sqlHost?: string; aux?: unknown } = {}): Promise<MessageBody> {
    const compiled = this.compiled(await this.getTransform(name));
    const result = await this.execute(compiled, sourceDocument(body), options.sqlHost, options.aux === undefined ? {} : { aux: options.aux as JsonValue });
    if (result.status === 'error') {
      throw new ConveyorError('ERR_DTL', `Transform ${name} failed: ${result.errors.map((e) => `${e.line}:${e.column}: ${e.message}`).join('; ')}`);
    }
    const classname = result.targetClassname || compiled.ast.targetClass;
    if (classname.startsWith('Ens.') || classname.startsWith('EnsLib.')) {
      return { classname, encoding: 'native', data: JSON.stringify(result.target) };
    }
    return { classname, encoding: 'json', data: JSON.stringify(result.target) };
  }

  async listSchemas(): Promise<SchemaSummary[]> {
    return (await this.store.schemas.list(this.namespace)).map(({ name, category, updatedAt }) => ({ name, category, updatedAt }));
  }

  async getSchema(name: string): Promise<{ name: string; category: string; schema: unknown }> {
    const stored = await this.store.schemas.get(this.namespace, name);
    if (!stored) throw new ConveyorError('ERR_SCHEMA_NOT_FOUND', `Schema ${name} does not exist in namespace ${this.namespace}`);
    return { name: stored.name, category: stored.category, schema: JSON.parse(stored.schema) as unknown };
  }

  async schemaTree(name: string): Promise<SchemaTreeNode[]> {
    return schemaToTree((await this.getSchema(name)).schema);
  }

  /** The spec's import operation: a JSON schema file (or document), a package, a schema name. */
  async importSchema(request: { path?: string; schema?: unknown; package: string; name: string }): Promise<void> {
    if (!request.name.trim()) throw new ConveyorError('ERR_INVALID_INPUT', 'The schema needs a name');
    checkName('schema', request.name);
    if (request.package !== '') checkName('schema package', request.package);
    let schema = request.schema;
    if (request.path !== undefined) {
      let text: string;
      try {
        text = await readFile(request.path, 'utf8');
      } catch (error) {
        throw new ConveyorError(
          'ERR_INVALID_INPUT',
          `Cannot read the schema file ${request.path}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`,
        );
      }
      try {
        schema = JSON.parse(text) as unknown;
      } catch (error) {
        // Where only, never the parser's message: it quotes the file's text.
        throw new ConveyorError('ERR_INVALID_INPUT', `The schema file ${request.path} is not valid JSON (at ${jsonErrorPosition(text, error)})`);
      }
    }
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new ConveyorError('ERR_INVALID_INPUT', `The schema ${request.name} must be a JSON object`);
    }
    schemaToTree(schema); // refuses a schema whose $refs cannot be resolved
    await this.store.schemas.put(this.namespace, { name: request.name, category: request.package, schema: JSON.stringify(schema) });
  }

  async deleteSchema(name: string): Promise<void> {
    await this.getSchema(name);
    await this.store.schemas.delete(this.namespace, name);
  }

  lookupTables(): Promise<string[]> {
    return this.store.lookups.tables(this.namespace);
  }

  async getLookup(table: string): Promise<Record<string, string>> {
    const entries = await this.store.lookups.get(this.namespace, table);
    if (!entries) throw new ConveyorError('ERR_LOOKUP_NOT_FOUND', `Lookup table ${table} does not exist in namespace ${this.namespace}`);
    return entries;
  }

  async putLookup(table: string, entries: Record<string, string>): Promise<void> {
    checkLookupName(table);
    await this.store.lookups.put(this.namespace, table, entries);
    this.loadedLookups = null;
  }

  async putLookups(tables: Record<string, Record<string, string>>): Promise<void> {
    for (const table of Object.keys(tables)) checkLookupName(table);
    await this.store.lookups.putMany(this.namespace, tables);
    this.loadedLookups = null;
  }

  async deleteLookup(table: string): Promise<void> {
    await this.getLookup(table);
    await this.store.lookups.delete(this.namespace, table);
    this.loadedLookups = null;
  }

  private compiled(stored: StoredTransform): CompiledTransform {
    return this.cache.getOrCompile({ namespace: this.namespace, name: stored.name, version: stored.version }, stored.source);
  }

  private async execute(
    compiled: CompiledTransform,
    source: JsonValue,
    sqlHost: string | undefined,
    options: Omit<RunOptions, 'host'> = {},
  ): Promise<DtlResult> {
    return compiled.run(source, { ...options, host: await this.host(compiled, sqlHost || defaultSqlHost) });
  }

  private async host(compiled: CompiledTransform, sqlHost: string): Promise<DtlHost> {
    let loaded = this.loadedLookups;
    if (!loaded) {
      const tables = new Map<string, Record<string, string>>();
      for (const table of await this.store.lookups.tables(this.namespace)) tables.set(table, (await this.store.lookups.get(this.namespace, table)) ?? {});
      this.loadedLookups = loaded = tables;
    }
    const subtransforms = new Map<string, CompiledTransform>();
    const pending = [...compiled.dependencies];
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (subtransforms.has(name)) continue;
      const stored = await this.store.transforms.get(this.namespace, name);
      if (!stored) continue;
      const dependency = this.compiled(stored);
      subtransforms.set(name, dependency);
      pending.push(...dependency.dependencies);
    }
    return {
      lookup: (table, key) => loaded.get(table)?.[key],
      subtransform: (name) => subtransforms.get(name),
      runPython: this.runPython,
      runSql: (query) => this.sqlHosts.runSql(sqlHost, query),
    };
  }

  private async docTypeSchema(docType: string): Promise<unknown> {
    if (!docType) return undefined;
    const stored = await this.store.schemas.get(this.namespace, docType);
    return stored ? (JSON.parse(stored.schema) as unknown) : undefined;
  }
}

/** The JSON document a message body offers a transform as its source. */
export function sourceDocument(body: MessageBody): JsonValue {
  if (body.encoding === 'empty' || body.data === '') return {};
  if (body.encoding === 'pickle') throw new ConveyorError('ERR_DTL', `A pickled ${body.classname} cannot be transformed; send it as JSON`);
  return JSON.parse(body.data) as JsonValue;
}

/**
 * The class a class document (`.cls` text or Studio XML export) declares, or null for a bare
 * `<transform>` (or a document too broken to tell: compiling reports that).
 */
function declaredClassName(source: string): string | null {
  try {
    return parseTransform(source, 'transform').className;
  } catch {
    return null;
  }
}

/**
 * @module dtl — the DTL transformation engine (pure: no node: imports; the portal uses it too).
 *
 * Stages: carrier text → `parseTransform` (positioned model) → `validateTransform` /
 * `compileTransform` (closures) → `CompiledTransform.run`. Also: `serializeTransform` (model → XML),
 * `parseTestEnvelope` (the portal's test payload), `schemaToTree` (JSON schema → editor tree) and
 * `TransformCache` (compiled transforms by name and version).
 */
export type {
  ActionNode,
  AssignAction,
  AssignNode,
  BreakNode,
  CaseNode,
  CodeNode,
  CommentNode,
  CreateMode,
  ForeachNode,
  GroupNode,
  IfNode,
  Language,
  ParameterName,
  SqlNode,
  SubtransformNode,
  SwitchNode,
  TraceNode,
  TransformNode,
  TransformParameters,
} from './ast.ts';
export { PARAMETER_NAMES, withoutPositions } from './ast.ts';
export type { DtlDiagnostic, Position } from './diagnostics.ts';
export { formatDiagnostic } from './diagnostics.ts';
export { BARE_XML_PARAMETERS, parseTransform, type ParseOptions } from './parse-transform.ts';
export { compileTransform, validateTransform } from './transform.ts';
export type { CompiledTransform, DtlHost, DtlResult, DtlRunError, DtlTraceEntry, PythonRequest, PythonResult, RunOptions, SqlQuery } from './types.ts';
export type { JsonValue } from './values.ts';
export { serializeTransform, serializeTransformClass } from './serialize.ts';
export { parseTestEnvelope } from './test-envelope.ts';
export { schemaToTree, type SchemaTreeNode } from './schema-tree.ts';
export { TransformCache, type CacheKey } from './cache.ts';
export { interpretTransform, type InterpretedTransform } from './interpret.ts';
export { checkPathsAgainstSchemas, type DocTypeSchemas } from './schema-check.ts';
export { checkReferences, type KnownClasses } from './reference-check.ts';
export { checkExpression, compileExpression, type CompiledExpression, type CompileExpressionOptions, type ExpressionContext } from './expression.ts';
export { parseLookupTableXml, serializeLookupTableXml, type LookupTables } from './lookup-table-xml.ts';

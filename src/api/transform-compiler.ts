/**
 * The class-document compiler for DTL transform classes: stores the class text as a transform (the
 * namespace's DTL parses the `XData DTL` block, validates it and keeps a new version) under the class
 * name, and turns its positioned diagnostics into compile errors `Name.cls line L:C: message`.
 */
import { isConveyorError } from '../core/errors.ts';
import type { DtlOperations } from '../engine/namespace-operations.ts';
import type { ClassDocumentCompiler } from './class-documents.ts';

/** `Demo.MyTransform.cls` → `Demo.MyTransform` */
export function transformName(documentName: string): string {
  return documentName.replace(/\.cls$/i, '');
}

interface PositionedProblem {
  line: number;
  column: number;
  severity: string;
  message: string;
}

function isProblem(value: unknown): value is PositionedProblem {
  return typeof value === 'object' && value !== null && 'line' in value && 'column' in value && 'severity' in value && 'message' in value;
}

function diagnosticsOf(error: unknown): PositionedProblem[] {
  const details = isConveyorError(error) ? error.details : undefined;
  return Array.isArray(details) ? details.filter(isProblem) : [];
}

/** What the compiler needs of the engine (EngineOperations fits it). */
export interface TransformStore {
  namespace(name: string): Promise<{ dtl: Pick<DtlOperations, 'putTransform'> }>;
}

export function transformCompiler(engine: TransformStore): ClassDocumentCompiler {
  return async (document) => {
    const name = transformName(document.name);
    try {
      const stored = await (await engine.namespace(document.namespace)).dtl.putTransform(name, document.text);
      return { console: [`${document.name}: compiled as transform ${name} (version ${stored.version})`], errors: [] };
    } catch (error) {
      const diagnostics = diagnosticsOf(error).filter((diagnostic) => diagnostic.severity === 'error');
      if (diagnostics.length === 0) return { console: [], errors: [`${document.name}: ${(error as Error).message}`] };
      return { console: [], errors: diagnostics.map((d) => `${document.name} line ${d.line}:${d.column}: ${d.message}`) };
    }
  };
}

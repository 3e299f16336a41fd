/**
 * The class-document compiler for DTL transform classes: stores the class text as a transform (the DTL
 * service parses the `XData DTL` block, validates it and keeps a new version) under the class name,
 * and turns its positioned diagnostics into compile errors `Name.cls line L:C: message`.
 */
import { isConveyorError } from '../core/errors.ts';
import type { ClassDocumentCompiler } from './class-documents.ts';
import type { DtlService, PortalDiagnostic } from './portal-engine.ts';

/** `Demo.MyTransform.cls` → `Demo.MyTransform` */
export function transformName(documentName: string): string {
  return documentName.replace(/\.cls$/i, '');
}

function diagnosticsOf(error: unknown): PortalDiagnostic[] {
  const details = isConveyorError(error) ? error.details : undefined;
  return Array.isArray(details) ? (details as PortalDiagnostic[]) : [];
}

/** `dtl` is read at each compile, so an engine that gains its DTL service later is picked up. */
export function transformCompiler(dtl: () => Pick<DtlService, 'putTransform'> | undefined): ClassDocumentCompiler {
  return async (document) => {
    const service = dtl();
    const name = transformName(document.name);
    if (!service) return { console: [], errors: [`${document.name}: is a DTL transform, but this server's engine has no DTL service`] };
    try {
      const stored = await service.putTransform(document.namespace, name, document.text);
      return { console: [`${document.name}: compiled as transform ${name} (version ${stored.version})`], errors: [] };
    } catch (error) {
      const diagnostics = diagnosticsOf(error).filter((diagnostic) => diagnostic.severity === 'error');
      if (diagnostics.length === 0) return { console: [], errors: [`${document.name}: ${(error as Error).message}`] };
      return { console: [], errors: diagnostics.map((d) => `${document.name} line ${d.line}:${d.column}: ${d.message}`) };
    }
  };
}

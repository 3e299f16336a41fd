/**
 * Class documents uploaded by remote init (`iop -i`, the IRIS Atelier document API). Conveyor keeps
 * every document as a file in the namespace's documents folder. On compile, DTL transform classes
 * (`Extends Ens.DataTransformDTL` with an `XData DTL` block) go to the configured ClassDocumentCompiler,
 * which stores and compiles them as transforms; every other document is only kept, because Conveyor
 * implements the IoP runtime classes natively, and the compile console says so for each.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isTemporaryName, removeStaleTemporariesIn, writeFileAtomic } from '../core/atomic-file.ts';
import { ConveyorError } from '../core/errors.ts';

export type ClassDocumentKind = 'dtl-transform' | 'class' | 'other';

export interface ClassDocument {
  namespace: string;
  /** The document name, e.g. `Demo.Transform.cls`. */
  name: string;
  text: string;
  kind: ClassDocumentKind;
}

export interface CompileOutcome {
  /** Lines for the compile console. */
  console: string[];
  /** Errors; non-empty fails the compile call (`status.errors`). */
  errors: string[];
}

/** The seam where transform compilation plugs in (the DTL part): called for DTL transform classes. */
export type ClassDocumentCompiler = (document: ClassDocument) => Promise<CompileOutcome>;

export function checkDocumentName(name: string): void {
  if (!/^[A-Za-z0-9%_][A-Za-z0-9%_.-]*\.[A-Za-z0-9]+$/.test(name) || name.length > 255 || name.includes('..') || isTemporaryName(name)) {
    throw new ConveyorError('ERR_UNSAFE_PATH', `Invalid document name ${JSON.stringify(name)}`, {
      hint: 'Use a dotted class name with its extension, e.g. Demo.MyTransform.cls',
    });
  }
}

export function classify(name: string, text: string): ClassDocumentKind {
  if (!name.toLowerCase().endsWith('.cls')) return 'other';
  const extendsDtl = /^\s*Class\s+[\w.%]+\s+Extends\s+\(?[^{\n]*\bEns\.DataTransformDTL\b/im.test(text);
  return extendsDtl && /^\s*XData\s+DTL\b/im.test(text) ? 'dtl-transform' : 'class';
}

export interface StoredDocument {
  created: boolean;
  /** Epoch ms of the write. */
  timestamp: number;
}

export class ClassDocumentStore {
  readonly #folder: (namespace: string) => string;
  readonly #compiler: ClassDocumentCompiler;
  /** The folders already rid of the temporary files of killed writers, by this process. */
  readonly #swept = new Map<string, Promise<unknown>>();

  constructor(folder: (namespace: string) => string, compiler: ClassDocumentCompiler) {
    this.#folder = folder;
    this.#compiler = compiler;
  }

  #path(namespace: string, name: string): string {
    checkDocumentName(name);
    return join(this.#folder(namespace), name);
  }

  /** On first use of a namespace's folder: removes the temporary files a kill -9 left there. */
  #sweep(namespace: string): Promise<unknown> {
    const folder = this.#folder(namespace);
    let swept = this.#swept.get(folder);
    if (swept === undefined) {
      swept = removeStaleTemporariesIn(folder).catch((error: unknown) => {
        this.#swept.delete(folder);
        throw error;
      });
      this.#swept.set(folder, swept);
    }
    return swept;
  }

  /** Replaces the document whole, all or nothing across kill -9 (flushed temporary file renamed over it). */
  async put(namespace: string, name: string, text: string): Promise<StoredDocument> {
    const path = this.#path(namespace, name);
    await mkdir(this.#folder(namespace), { recursive: true });
    await this.#sweep(namespace);
    const created = !(await stat(path).then(
      () => true,
      () => false,
    ));
    await writeFileAtomic(path, text);
    return { created, timestamp: Date.now() };
  }

  async get(namespace: string, name: string): Promise<string> {
    const path = this.#path(namespace, name);
    await this.#sweep(namespace);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ConveyorError('ERR_INVALID_INPUT', `No document ${name} in namespace ${namespace}; upload it with PUT first`);
      }
      throw error;
    }
  }

  /** Compiles the documents in order; a missing or failing document is an error, the others go on. */
  async compile(namespace: string, names: string[]): Promise<CompileOutcome> {
    const outcome: CompileOutcome = { console: [`Compiling ${names.length} document(s) in namespace ${namespace}`], errors: [] };
    for (const name of names) {
      let text: string;
      try {
        text = await this.get(namespace, name);
      } catch (error) {
        outcome.errors.push((error as Error).message);
        continue;
      }
      const kind = classify(name, text);
      if (kind !== 'dtl-transform') {
        outcome.console.push(`${name}: kept; Conveyor implements this ${kind === 'class' ? 'class' : 'document'} natively, nothing to compile`);
        continue;
      }
      try {
        const result = await this.#compiler({ namespace, name, text, kind });
        outcome.console.push(...result.console);
        outcome.errors.push(...result.errors);
      } catch (error) {
        outcome.errors.push(`${name}: ${(error as Error).message}`);
      }
    }
    outcome.console.push(outcome.errors.length === 0 ? 'Compilation finished successfully' : `Compilation finished with ${outcome.errors.length} error(s)`);
    return outcome;
  }
}

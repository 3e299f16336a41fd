/**
 * `-i [DIR]`: load class files into the namespace through the class-document API: one
 * `PUT {docs_api}/{namespace}/doc/{name}` per file (printing `Uploaded: <name>`), then one compile of
 * them all, whose console is printed. Without DIR, the class files Conveyor bundles. Local mode reads
 * the same files from the local disk and sends them over the home's socket.
 */
import { resolve } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import type { CommandContext } from './context.ts';
import { bundledClassFolder, classFileLines, collectClassFiles } from './class-files.ts';

export async function initAction({ command, client, io }: CommandContext): Promise<void> {
  const folder = command.value === undefined ? bundledClassFolder : resolve(io.cwd, command.value);
  const files = collectClassFiles(folder);
  for (const file of files) {
    await client.putClassDocument(file.name, classFileLines(file));
    io.out(`Uploaded: ${file.name}`);
  }
  const reply = await client.compileClassDocuments(files.map((file) => file.name));
  for (const line of reply.console ?? []) if (typeof line === 'string' && line.trim() !== '') io.out(line);
  const errors = reply.status?.errors ?? [];
  if (errors.length > 0) {
    const texts = errors.map(compileErrorText);
    throw new ConveyorError('ERR_SERVER', `Compilation errors: ${texts.join('; ')}`);
  }
  io.out(`Loaded ${files.length} class file${files.length === 1 ? '' : 's'} into namespace ${client.namespace}`);
}

/** An Atelier error is a string or an object whose `error` field holds the text. */
function compileErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { error?: unknown }).error === 'string') return (error as { error: string }).error;
  return JSON.stringify(error);
}

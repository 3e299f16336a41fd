/**
 * `-e [NAME] --format python|class|graph|mermaid` (IoP 4, beyond the spec): the production rebuilt by
 * IoP 4's `Production.from_dict` from the export and the connections (as IoP's `from_iris` does) and
 * rendered by it, in python3 on this machine. `--format json` (the default) is the spec's `-e`.
 */
import * as components from '../core/contract/component-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import { effectiveDefault, type CommandContext } from './context.ts';
import { answerMarker, runLocalPython } from './local-python.ts';
import { toCliExport } from './output-format.ts';

export const exportFormats = ['json', 'python', 'class', 'graph', 'mermaid'] as const;

const renderScript = `
import json, sys
from iop import Production
given = json.load(sys.stdin)
production = Production.from_dict(given['export'], connections=given['connections'])
kind = given['format']
text = production.to_python() if kind == 'python' else production.to_class() if kind == 'class' else str(production.graph()) + '\\n' if kind == 'graph' else production.to_mermaid()
sys.stdout.write(${JSON.stringify(answerMarker)} + text)
`;

export async function renderExportAction({ command, client, io }: CommandContext): Promise<void> {
  const format = command.format ?? 'json';
  if (!(exportFormats as readonly string[]).includes(format)) {
    throw new ConveyorError('ERR_USAGE', `--format takes one of ${exportFormats.join(', ')}, not '${format}'`);
  }
  const name = command.value ?? (await effectiveDefault(client));
  const exported = toCliExport(await client.exportProduction(name));
  const connections = await client.call(components.connections, { query: { production: name } });
  const text = runLocalPython(renderScript, [], io.env, `Rendering ${name} as ${format}`, JSON.stringify({ export: exported, connections, format }));
  io.out(text.replace(/\n$/, ''));
}

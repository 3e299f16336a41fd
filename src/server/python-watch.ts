/**
 * `conveyor serve --watch`: the developer loop. Every interval it looks at the Python files of each
 * item of the running productions (its class's module and what that imports from its classpaths,
 * python-imports.ts) and restarts exactly the items whose files changed (size or modification
 * time), writing one event-log entry per restart that names the files. An item first seen (a start,
 * an update) is only recorded. Polling, not inotify: it works on every file system and in
 * containers, and costs a few stat calls per item and interval.
 */
import { stat } from 'node:fs/promises';
import { errorText } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
import type { ClassBinding } from '../core/components.ts';
import type { ItemDefinition } from '../core/production.ts';
import { pythonFilesOf, shortName } from './python-imports.ts';

export interface PythonWatch {
  stop(): void;
}

/** file → "size:mtime" ("missing" when gone: a deleted file is a change too). */
type Signature = Map<string, string>;

async function signatureOf(files: readonly string[]): Promise<Signature> {
  const signature: Signature = new Map();
  for (const file of files) {
    const info = await stat(file).catch(() => null);
    signature.set(file, info ? `${info.size}:${info.mtimeMs}` : 'missing');
  }
  return signature;
}

function changedFiles(before: Signature, after: Signature): string[] {
  const files = new Set([...before.keys(), ...after.keys()]);
  return [...files].filter((file) => before.get(file) !== after.get(file)).sort();
}

/** The item's module (and its Python adapter's), with the classpaths they are read from. */
function codeOf(item: ItemDefinition, bindings: ReadonlyMap<string, ClassBinding>): Array<{ module: string; classpaths: string[] }> {
  const binding = bindings.get(item.classname);
  if (!binding || binding.runtime !== 'python' || !binding.module) return [];
  // IoP's item-level %classpaths, as the worker reads it (`|` or the path separator).
  const extra = (item.settings.find((s) => s.target === 'Host' && s.name === '%classpaths')?.value ?? '').split(/[|:]/).filter(Boolean);
  const module = item.settings.find((s) => s.target === 'Host' && s.name === '%module')?.value || binding.module;
  const code = [{ module, classpaths: [...binding.classpaths, ...extra] }];
  const adapter = binding.adapterType ? bindings.get(binding.adapterType) : undefined;
  if (adapter?.runtime === 'python' && adapter.module) code.push({ module: adapter.module, classpaths: [...adapter.classpaths, ...extra] });
  return code;
}

export function watchPythonFiles(engine: Engine, intervalMs: number, onProblem: (text: string) => void): PythonWatch {
  /** namespace/production/item → what its files were when last looked at. */
  const seen = new Map<string, { files: string[]; signature: Signature; classpaths: string[] }>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function look(): Promise<void> {
    const current = new Set<string>();
    // The restarts of one look run at once: an item slow to start holds up no other.
    const restarts: Array<Promise<void>> = [];
    for (const namespace of await engine.namespaces()) {
      const running = engine.runningProduction(namespace);
      if (!running) continue;
      const bindings = new Map((await (await engine.namespace(namespace)).classes()).map((binding) => [binding.name, binding]));
      for (const host of running.hosts.values()) {
        const key = `${namespace}\u0000${running.name}\u0000${host.item.name}`;
        current.add(key);
        // An item being (re)started or stopped keeps what was last seen: an edit made meanwhile is
        // still a change once it runs again.
        if (host.state !== 'running' && host.state !== 'error') continue;
        const code = codeOf(host.item, bindings);
        if (code.length === 0) continue;
        const classpaths = code.flatMap((part) => part.classpaths);
        const files = [...new Set((await Promise.all(code.map((part) => pythonFilesOf(part.module, part.classpaths)))).flat())].sort();
        const signature = await signatureOf(files);
        const before = seen.get(key);
        seen.set(key, { files, signature, classpaths });
        if (!before) continue;
        const changed = changedFiles(before.signature, signature);
        if (changed.length === 0) continue;
        const names = changed.map((file) => shortName(file, classpaths)).join(', ');
        running.log.write('Info', `Restarting item ${host.item.name}: its Python files changed (${names}) [serve --watch]`, { configName: host.item.name });
        // Commands on the item keep their order through the façade; a start that fails is in the log and
        // the item's status, and the next change of its files restarts it again.
        const components = (await engine.namespace(namespace)).components;
        restarts.push(
          components.restart(host.item.name).catch((error: unknown) => {
            running.log.write('Warning', `Item ${host.item.name} did not restart after its Python files changed: ${errorText(error)}`, {
              configName: host.item.name,
            });
          }),
        );
      }
    }
    for (const key of seen.keys()) if (!current.has(key)) seen.delete(key);
    await Promise.all(restarts);
  }

  const tick = () => {
    if (stopped) return;
    look()
      .catch((error: unknown) => onProblem(`serve --watch: ${errorText(error)}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
        timer?.unref();
      });
  };
  tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

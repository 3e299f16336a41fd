/**
 * Finds how to run an item's class: a built-in TypeScript component, or a registered Python class
 * binding (run by the bridge). Also computes a fingerprint of the code, so Update can restart only
 * the items whose Python source changed.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ComponentFactory } from '../core/component.ts';
import type { ClassBinding, ComponentKind } from '../core/components.ts';
import { ConveyorError } from '../core/errors.ts';
import type { Store } from '../store/store.ts';
import { defaultInterpreter, pythonComponentFactory } from '../bridge/index.ts';
import type { MessageBody } from '../core/message.ts';
import { checkMessageClass } from './message-class-check.ts';
import { builtinClasses } from './builtin/index.ts';
import { irisPythonAdapters, isIrisClassName, supportedIrisAdapters } from './iris-adapters.ts';
import { debugLauncherModule, itemDebugListen, itemInterpreter, type ItemPlacement, type PythonDefaults } from './item-python.ts';

export interface ResolvedComponent {
  kind: ComponentKind;
  factory: ComponentFactory;
  /**
   * Polled every CallInterval (Ens.InboundAdapter semantics): a service with an inbound adapter type,
   * or an operation with one — IoP's DuplexOperation, whose inbound side is polled beside its messages.
   */
  polling: boolean;
  /** Changes when the code behind the item changes. */
  fingerprint: string;
}

/** Adapter classes whose services (and duplex operations) the engine polls. */
const pollingAdapters = new Set(['Ens.InboundAdapter', 'EnsLib.File.InboundAdapter']);

/** How a production finds the implementation of an item's class. */
export interface Resolver {
  /** `placement`: the item it runs as, which may pick its own interpreter or a debugger (item-python.ts). */
  resolve(classname: string, placement?: ItemPlacement): Promise<ResolvedComponent>;
  /** Test calls: rejects when the item's Python cannot build this body (unknown class, refused body). */
  checkTestMessage?(placement: ItemPlacement, body: MessageBody): Promise<void>;
}

export class ComponentResolver implements Resolver {
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly interpreter: string | undefined,
    private readonly pythonByProduction: Readonly<Record<string, string>> = {},
  ) {}

  async resolve(classname: string, placement?: ItemPlacement): Promise<ResolvedComponent> {
    const builtin = builtinClasses.get(classname);
    if (builtin) return { kind: builtin.kind, factory: builtin.factory, polling: builtin.kind === 'service', fingerprint: 'builtin' };
    const binding = await this.store.classes.get(this.namespace, classname);
    if (!binding) {
      throw new ConveyorError('ERR_CLASS_NOT_FOUND', `Class ${classname} is not registered in namespace ${this.namespace}`, {
        hint: 'Register it with a settings.py migration (cli -m settings.py) or use a built-in class',
      });
    }
    if (binding.runtime !== 'python' || binding.module === null || binding.className === null) {
      throw new ConveyorError('ERR_CLASS_NOT_FOUND', `Class ${classname} has no Python module and class to run`);
    }
    // A Python adapter (a registered adapter class the component's get_adapter_type() names, or
    // one of IRIS's adapters Conveyor writes in Python) runs in the component's worker.
    const adapterType = binding.adapterType ?? '';
    const irisAdapter = irisPythonAdapters.get(adapterType);
    const adapter = adapterType !== '' && !isIrisClassName(adapterType) ? await this.store.classes.get(this.namespace, adapterType) : null;
    if (adapterType !== '' && !irisAdapter && !supportedIrisAdapters.includes(adapterType) && !adapter) {
      throw new ConveyorError(
        'ERR_CLASS_NOT_FOUND',
        isIrisClassName(adapterType)
          ? `Class ${classname} names the adapter ${adapterType}, an IRIS adapter Conveyor does not provide (docs/enslib.md)`
          : `Class ${classname} names the adapter ${adapterType}, which is not registered in namespace ${this.namespace}`,
      );
    }
    const pythonAdapter = irisAdapter
      ? { ...irisAdapter, classpaths: [] }
      : adapter &&
          adapter.runtime === 'python' &&
          adapter.module &&
          adapter.className &&
          (adapter.kind === 'inbound_adapter' || adapter.kind === 'outbound_adapter')
        ? { module: adapter.module, className: adapter.className, classpaths: adapter.classpaths }
        : null;
    const interpreter = await itemInterpreter(placement, this.pythonDefaults(), binding.classpaths[0]);
    const debug = placement ? itemDebugListen(placement.item) : null;
    return {
      kind: binding.kind,
      factory: pythonComponentFactory({
        module: binding.module,
        className: binding.className,
        classpaths: binding.classpaths,
        adapter: pythonAdapter,
        interpreter,
        ...(debug === null
          ? {}
          : {
              launcher: {
                module: debugLauncherModule,
                env: { CONVEYOR_DEBUGPY_LISTEN: `${debug.host}:${debug.port}`, CONVEYOR_DEBUGPY_WAIT: debug.wait ? '1' : '0' },
              },
              // Waiting for a debugger to attach is part of the worker's start; the item's start budget still bounds it.
              ...(debug.wait ? { timeouts: { startMs: debuggerAttachMs } } : {}),
            }),
      }),
      polling:
        (binding.kind === 'service' || binding.kind === 'operation') &&
        binding.adapterType !== null &&
        (pollingAdapters.has(binding.adapterType) || adapter?.kind === 'inbound_adapter'),
      fingerprint: (await sourceFingerprint(binding)) + (adapter ? `+${await sourceFingerprint(adapter)}` : ''),
    };
  }

  async checkTestMessage(placement: ItemPlacement, body: MessageBody): Promise<void> {
    if (body.encoding !== 'json') return;
    const item = placement.item;
    const binding = await this.store.classes.get(this.namespace, item.classname);
    // A built-in target still gets Python messages: any registered classpath may hold their class.
    const classpaths = binding?.runtime === 'python' ? [...binding.classpaths] : (await this.store.classes.list(this.namespace)).flatMap((b) => b.classpaths);
    // IoP's item-level %classpaths override, as the worker reads it (`|` or the path separator).
    const extra = item.settings.find((s) => s.target === 'Host' && s.name === '%classpaths')?.value ?? '';
    classpaths.push(...extra.split(/[|:]/).filter(Boolean));
    // The item's own interpreter: the message classes may import packages of its virtual environment.
    await checkMessageClass(body, classpaths, await itemInterpreter(placement, this.pythonDefaults(), binding?.classpaths[0]));
  }

  private pythonDefaults(): PythonDefaults {
    return { interpreter: this.interpreter ?? defaultInterpreter(), byProduction: this.pythonByProduction };
  }
}

/** How long a worker started with `%debugpy_wait` waits for the debugger (within the item's start budget). */
const debuggerAttachMs = 55_000;

/** Size and modification time of the module's file in the first classpath that has it. */
async function sourceFingerprint(binding: ClassBinding): Promise<string> {
  const relative = (binding.module ?? '').split('.').join('/');
  for (const root of binding.classpaths) {
    for (const candidate of [`${relative}.py`, join(relative, '__init__.py')]) {
      try {
        const info = await stat(join(root, candidate));
        return `${binding.updatedAt}:${info.size}:${info.mtimeMs}`;
      } catch {
        // not in this classpath: try the next
      }
    }
  }
  return String(binding.updatedAt);
}

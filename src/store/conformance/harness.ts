/** What every conformance section shares: the store under test and builders of valid rows. */
import type { ClassBinding } from '../../core/components.ts';
import type { NewLogEntry } from '../../core/log.ts';
import type { Store, NewMessage } from '../store.ts';

export interface OpenedStore {
  store: Store;
  /** Opens the same database again (after `store.close()`): the durability checks need it. */
  reopen: () => Promise<Store>;
  /** Removes what `open` created (files, schemas, databases). */
  cleanup: () => Promise<void>;
}

export interface Harness {
  /** The store of the running test (a fresh, empty database per test). */
  store(): Store;
  /** Closes the current store and opens the same database again; the new store becomes current. */
  reopen(): Promise<Store>;
}

export function newMessage(overrides: Partial<NewMessage> = {}): NewMessage {
  return {
    namespace: 'USER',
    sessionId: null,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'Svc',
    target: 'Op',
    responseRequired: false,
    status: 'queued',
    priority: 0,
    description: '',
    body: { classname: 'msg.Ping', encoding: 'json', data: '{"n":1}' },
    ...overrides,
  };
}

export function newLogEntry(overrides: Partial<NewLogEntry> = {}): NewLogEntry {
  return {
    type: 'Info',
    configName: 'Svc',
    job: '1234',
    messageId: null,
    sessionId: null,
    sourceClass: 'bs.Svc',
    sourceMethod: 'on_process_input',
    text: 'hello',
    ...overrides,
  };
}

export function newBinding(name: string, overrides: Partial<ClassBinding> = {}): ClassBinding {
  return {
    name,
    kind: 'operation',
    runtime: 'python',
    module: 'bo',
    className: 'MyOperation',
    classpaths: ['/srv/app'],
    settings: [{ name: 'Path', type: 'str', defaultValue: null, description: 'Where files go' }],
    adapterType: null,
    updatedAt: 1_700_000_000_123,
    ...overrides,
  };
}

/** Returns once `Date.now()` has moved past `t`, so the next write gets a later timestamp. */
export async function clockPast(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((resolve) => setTimeout(resolve, 1));
}

export function isStrictlyIncreasing(values: number[]): boolean {
  return values.every((value, index) => index === 0 || value > values[index - 1]!);
}

/**
 * Reading and writing JSON documents along a path (dtl-reference §1.17.5). Positions are 1-based;
 * `()` fans out over every element; `("*")` counts; a path that does not exist reads as MISSING.
 */
import { collate, compareCollation, keyValue } from './collation.ts';
import { Dec } from './decimal.ts';
import { Fanout, setMember, toStr } from './values.ts';

export const MISSING: unique symbol = Symbol('missing');

/** A step whose index is already known: a member name, a position, a key or a fan-out. */
export type ResolvedStep = { t: 'member'; name: string } | { t: 'pos'; n: number } | { t: 'key'; key: string } | { t: 'all' } | { t: 'count' } | { t: 'last' };

/** A write that cannot be done (the path runs into a scalar, a list is expected, …): an action error. */
export class PathError extends Error {}

type Container = Record<string, unknown> | unknown[];

/** A JSON object: not a list, not a decimal, not a fan-out. */
function isObject(node: unknown): node is Record<string, unknown> {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof Dec) && !(node instanceof Fanout);
}

function elements(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (isObject(node)) return collate(Object.keys(node)).map((k) => node[k]);
  if (node === null || node === undefined) return [];
  return [node];
}

function count(node: unknown): number {
  if (Array.isArray(node)) return node.length;
  if (isObject(node)) return Object.keys(node).length;
  if (node === null || node === undefined || node === '' || node === MISSING) return 0;
  return 1;
}

function step1(node: unknown, step: ResolvedStep): unknown {
  switch (step.t) {
    case 'member':
      return isObject(node) && Object.hasOwn(node, step.name) ? node[step.name] : MISSING;
    case 'pos':
      if (Array.isArray(node)) return step.n >= 1 && step.n <= node.length ? node[step.n - 1] : MISSING;
      return isObject(node) && Object.hasOwn(node, String(step.n)) ? node[String(step.n)] : MISSING;
    case 'key':
      return isObject(node) && Object.hasOwn(node, step.key) ? node[step.key] : MISSING;
    case 'last':
      return Array.isArray(node) && node.length > 0 ? node[node.length - 1] : MISSING;
    case 'count':
      return count(node);
    case 'all':
      return new Fanout(elements(node));
  }
}

/** Reads a path. Returns MISSING for an absent path, a Fanout when a `()` step fanned out. */
export function readPath(root: unknown, steps: ResolvedStep[]): unknown {
  let node: unknown = root;
  let fan: unknown[] | null = null;
  for (const step of steps) {
    if (fan === null) {
      if (node === MISSING) return step.t === 'count' ? 0 : MISSING;
      const next = step1(node, step);
      if (next instanceof Fanout) fan = next.items;
      else node = next;
      continue;
    }
    const out: unknown[] = [];
    for (const item of fan) {
      const next = step1(item, step);
      if (next instanceof Fanout) out.push(...next.items);
      else if (next !== MISSING) out.push(next);
    }
    fan = out;
  }
  return fan === null ? node : new Fanout(fan);
}

function containerFor(next: ResolvedStep): Container {
  return next.t === 'pos' || next.t === 'all' || next.t === 'last' ? [] : {};
}

function describe(node: unknown): string {
  if (Array.isArray(node)) return 'a list';
  if (node === null) return 'null';
  return isObject(node) ? 'an object' : `the ${typeof node} ${JSON.stringify(node)}`;
}

/** The child of `node` at `step`, created (as the container `next` needs) when absent. */
function child(node: unknown, step: ResolvedStep, next: ResolvedStep): unknown {
  const existing = step1(node, step);
  if (existing !== MISSING && existing !== null) return existing;
  const created = containerFor(next);
  put(node, step, created);
  return created;
}

/** Stores `value` at `step` of the container `node`. */
function put(node: unknown, step: ResolvedStep, value: unknown): void {
  if (step.t === 'member' || step.t === 'key') {
    const name = step.t === 'member' ? step.name : step.key;
    if (!isObject(node)) throw new PathError(`cannot set "${name}": the node is ${describe(node)}, not an object`);
    setMember(node, name, value);
    return;
  }
  if (step.t === 'pos' || step.t === 'last') {
    if (isObject(node) && step.t === 'pos') {
      setMember(node, String(step.n), value);
      return;
    }
    if (!Array.isArray(node)) throw new PathError(`cannot set an element: the node is ${describe(node)}, not a list`);
    const n = step.t === 'last' ? Math.max(node.length, 1) : step.n;
    while (node.length < n - 1) node.push(null);
    node[n - 1] = value;
    return;
  }
  throw new PathError(step.t === 'count' ? 'cannot write to a ("*") count' : 'cannot write to () here');
}

export type WriteAction = 'set' | 'append' | 'insert' | 'remove' | 'clear';

/**
 * Writes along `steps` starting at the container `root`. A `()` step inside the path applies the
 * rest of the write to every existing element. `key` is '' or the collection key of the action.
 */
export function writePath(root: unknown, path: ResolvedStep[], action: WriteAction, key: string | number, value: unknown): void {
  // For the collection actions a trailing () names the list itself (`names()` append).
  const steps = action !== 'set' && path.length > 1 && path[path.length - 1]!.t === 'all' ? path.slice(0, -1) : path;
  let node = root;
  const last = steps.length - 1;
  for (let i = 0; i < last; i++) {
    const step = steps[i]!;
    if (step.t === 'all') {
      const rest = steps.slice(i + 1);
      for (const item of elements(node)) writePath(item, rest, action, key, value);
      return;
    }
    if (node === null || typeof node !== 'object') throw new PathError(`cannot walk into ${describe(node)}`);
    node = child(node, step, steps[i + 1]!);
  }
  const final = steps[last];
  if (final === undefined) throw new PathError('the path is empty');
  applyAction(node, final, action, key, value);
}

function applyAction(parent: unknown, step: ResolvedStep, action: WriteAction, key: string | number, value: unknown): void {
  const keyed = key !== '';
  if (action === 'set' && !keyed) {
    if (step.t === 'all') {
      throw new PathError('cannot set a () path to a single value; use action "append" or a foreach');
    }
    put(parent, step, value);
    return;
  }
  if (action === 'append' || (action === 'insert' && !keyed)) {
    const listStep = step;
    if (listStep.t === 'all') throw new PathError('cannot append to a () element');
    const list = step1(parent, listStep);
    if (list === MISSING || list === null) put(parent, listStep, [value]);
    else if (Array.isArray(list)) list.push(value);
    else throw new PathError(`cannot append: the node is ${describe(list)}, not a list`);
    return;
  }
  const node = step1(parent, step);
  if (action === 'remove' && !keyed) {
    if (node === MISSING) return;
    if (Array.isArray(parent)) {
      const n = step.t === 'pos' ? step.n : step.t === 'last' ? parent.length : 0;
      if (n >= 1) parent.splice(n - 1, 1);
    } else if (isObject(parent)) delete parent[step.t === 'member' ? step.name : step.t === 'key' ? step.key : step.t === 'pos' ? String(step.n) : ''];
    return;
  }
  if (action === 'clear') {
    if (Array.isArray(node)) node.length = 0;
    else if (isObject(node)) for (const k of Object.keys(node)) delete node[k];
    else if (node !== MISSING && node !== null) throw new PathError(`cannot clear ${describe(node)}: not a collection`);
    return;
  }
  // Keyed set / insert / remove on the collection at the path.
  const index = typeof key === 'number' ? key : /^[1-9]\d*$/.test(key) ? Number(key) : null;
  if (action === 'remove') {
    if (Array.isArray(node)) {
      if (index !== null && index <= node.length) node.splice(index - 1, 1);
    } else if (isObject(node)) delete node[String(key)];
    return;
  }
  let collection = node;
  if (collection === MISSING || collection === null) {
    collection = action === 'set' && index !== null ? [] : {};
    put(parent, step, collection);
  }
  if (Array.isArray(collection)) {
    if (index === null) throw new PathError(`key "${key}" is not a list position (1, 2, …)`);
    if (action === 'insert') {
      if (index > collection.length + 1) throw new PathError(`cannot insert at position ${index}: the list has ${collection.length} element(s)`);
      collection.splice(index - 1, 0, value);
    } else put(collection, { t: 'pos', n: index }, value);
  } else if (isObject(collection)) setMember(collection, String(key), value);
  else throw new PathError(`cannot ${action} with a key: the node is ${describe(collection)}, not a collection`);
}

/**
 * The next foreach key after `key` ('' = start) in the collection, or '' when done. A list gives
 * 1…n; an object gives its keys like `$ORDER` (src/dtl/collation.ts): the first key that collates
 * after `key`, even when `key` itself was removed meanwhile; canonical numbers as numbers. The empty
 * key is skipped: IRIS cannot hold it as a subscript, and `""` is what ends the loop.
 */
export function nextKey(collection: unknown, key: unknown): number | Dec | string {
  if (Array.isArray(collection) || !isObject(collection)) {
    const size = Array.isArray(collection) ? collection.length : count(collection) || (collection === '' ? 1 : 0);
    const current = key === '' || key === undefined ? 0 : Number(key);
    return Number.isFinite(current) && current < size ? Math.floor(current) + 1 : '';
  }
  const after = key === '' || key === undefined ? null : toStr(key);
  let next: string | null = null;
  for (const candidate of Object.keys(collection)) {
    if (candidate === '' || (after !== null && compareCollation(candidate, after) <= 0)) continue;
    if (next === null || compareCollation(candidate, next) < 0) next = candidate;
  }
  return next === null ? '' : keyValue(next);
}

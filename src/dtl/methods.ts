/**
 * Methods callable on documents and collections from expressions and `<code>`:
 * `GetValueAt` / `SetValueAt` (the virtual-document API, the only path access inside `<code>`),
 * the list API (`Count`, `GetAt`, `SetAt`, `Insert`, `InsertAt`, `RemoveAt`, `Clear`) and the
 * dynamic-object API (`%Get`, `%Set`, `%Size`, `%IsDefined`, `%Push`, `%Remove`, `%ToJSON`).
 */
import { ObjectScriptError, type RunContext } from './context.ts';
import { Dec } from './decimal.ts';
import { DtlSyntaxError, type Position } from './diagnostics.ts';
import type { PathStep } from './expr-ast.ts';
import { MISSING, PathError, readPath, writePath, type ResolvedStep, type WriteAction } from './json-path.ts';
import { bool, cloneJson, isStructure, setMember, toJson, toNum, toStr } from './values.ts';
import { parseVPath } from './vpath.ts';

const pathCache = new Map<string, PathStep[]>();

function stepsOf(ctx: RunContext, path: string, pos: Position): ResolvedStep[] {
  let steps = pathCache.get(path);
  if (!steps) {
    try {
      steps = parseVPath(path, pos);
    } catch (error) {
      if (error instanceof DtlSyntaxError) throw new ObjectScriptError('ILLEGAL VALUE', `bad path "${path}": ${error.message}`, pos);
      throw error;
    }
    if (pathCache.size > 1000) pathCache.clear();
    pathCache.set(path, steps);
  }
  return steps.map((step): ResolvedStep => {
    if (step.kind === 'member') return { t: 'member', name: step.name };
    const ix = step.index;
    if (ix.k === 'var') {
      const v = ctx.locals[ix.name];
      if (v === undefined) throw new ObjectScriptError('UNDEFINED', ix.name, pos);
      const text = toStr(v);
      return /^[1-9]\d*$/.test(text) ? { t: 'pos', n: Number(text) } : { t: 'key', key: text };
    }
    if (ix.k === 'num') return { t: 'pos', n: ix.n };
    if (ix.k === 'key') return { t: 'key', key: ix.key };
    return { t: ix.k === 'expr' ? 'all' : ix.k };
  });
}

const STATUS_OK = Dec.ONE;

function statusError(message: string): string {
  return `0 ${message}`;
}

function position(k: unknown, zeroBased: boolean): number {
  return toNum(k).trunc().toJs() + (zeroBased ? 1 : 0);
}

export function callMethod(ctx: RunContext, target: unknown, name: string, args: unknown[], pos: Position): unknown {
  if (!isStructure(target)) {
    throw new ObjectScriptError('INVALID OREF', `cannot call ${name}() on ${target === '' ? 'an empty value' : JSON.stringify(toStr(target))}`, pos);
  }
  const list = Array.isArray(target) ? target : null;
  const obj = list ? null : (target as Record<string, unknown>);
  const [a, b, c, d] = args;
  switch (name) {
    case 'GetValueAt': {
      const v = readPath(target, stepsOf(ctx, toStr(a), pos));
      return v === MISSING ? '' : v;
    }
    case 'SetValueAt': {
      try {
        const action = (toStr(c) || 'set') as WriteAction;
        writePath(target, stepsOf(ctx, toStr(b), pos), action, d === undefined ? '' : toStr(d), cloneJson(toJson(a)));
        return STATUS_OK;
      } catch (error) {
        if (error instanceof PathError) return statusError(error.message);
        throw error;
      }
    }
    case 'Count':
    case '%Size':
      return Dec.fromInt(list ? list.length : Object.keys(obj!).length);
    case 'GetAt':
    case '%Get': {
      const zero = name === '%Get';
      if (list) return list[position(a, zero) - 1] ?? '';
      return obj![toStr(a)] ?? '';
    }
    case 'IsDefined':
    case '%IsDefined':
      if (list) {
        const n = position(a, name === '%IsDefined');
        return bool(n >= 1 && n <= list.length);
      }
      return bool(Object.hasOwn(obj!, toStr(a)));
    case 'SetAt':
    case '%Set': {
      const [value, key] = name === '%Set' ? [b, a] : [a, b];
      if (list) list[position(key, name === '%Set') - 1] = cloneJson(toJson(value));
      else setMember(obj!, toStr(key), cloneJson(toJson(value)));
      return STATUS_OK;
    }
    case 'Insert':
    case '%Push':
      if (!list) throw new ObjectScriptError('METHOD DOES NOT EXIST', `${name}() needs a list`, pos);
      list.push(cloneJson(toJson(a)));
      return STATUS_OK;
    case 'InsertAt':
      if (!list) throw new ObjectScriptError('METHOD DOES NOT EXIST', 'InsertAt() needs a list', pos);
      list.splice(position(b, false) - 1, 0, cloneJson(toJson(a)));
      return STATUS_OK;
    case 'RemoveAt':
    case '%Remove': {
      if (list) return list.splice(position(a, name === '%Remove') - 1, 1)[0] ?? '';
      const removed = obj![toStr(a)];
      delete obj![toStr(a)];
      return removed ?? '';
    }
    case 'Clear':
      if (list) list.length = 0;
      else for (const key of Object.keys(obj!)) delete obj![key];
      return STATUS_OK;
    case '%ToJSON':
      return JSON.stringify(toJson(target));
    default:
      throw new ObjectScriptError('METHOD DOES NOT EXIST', name, pos);
  }
}

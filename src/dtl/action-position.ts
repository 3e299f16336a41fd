/**
 * Where an action sits in a transform, as one string: the editor's action path joined with dots.
 * A top-level action is its index (`2`); an action inside a container adds the container's list and
 * the index in it: `2.actions.0` (foreach, group), `1.whenTrue.3` / `1.whenFalse.0` (if),
 * `0.cases.1.actions.0` and `0.otherwise.2` (switch). Trace entries, run errors and diagnostics carry
 * it, so the editor can select the action that wrote them.
 */
import type { ActionNode } from './ast.ts';

/** The action running (or being compiled) and its position; both `''` outside any action. */
export interface ActionWhere {
  readonly action: ActionNode['kind'] | '';
  readonly position: string;
}

/** The position of the `index`-th action of a list; `list` is `''` for the top level, else `parent.listName`. */
export function actionPosition(list: string, index: number): string {
  return list === '' ? String(index) : `${list}.${index}`;
}

/** The list of a container action: `actionList('2', 'actions')` = `2.actions`. */
export function actionList(position: string, name: 'actions' | 'whenTrue' | 'whenFalse' | 'otherwise' | `cases.${number}.actions`): string {
  return `${position}.${name}`;
}

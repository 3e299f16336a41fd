/**
 * Running compiled actions. A step is synchronous unless it needs the host's Python or SQL hook or a
 * subtransform; then it returns a promise and the sequence continues asynchronously. Pure
 * ObjectScript transforms therefore run without a single await.
 */
import { FLOW_NORMAL, type RunContext } from './context.ts';

export type Step = (ctx: RunContext) => void | Promise<void>;

export function runSequence(steps: Step[], ctx: RunContext, from = 0): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const pending = steps[i]!(ctx);
    if (pending !== undefined) return pending.then(() => (ctx.flow === FLOW_NORMAL ? runSequence(steps, ctx, i + 1) : undefined));
    if (ctx.flow !== FLOW_NORMAL) return;
  }
}

export function sequence(steps: Step[]): Step {
  if (steps.length === 1) return steps[0]!;
  return (ctx) => runSequence(steps, ctx);
}

/** Applies `then` to a value that may still be pending. */
export function whenReady<T>(value: T | Promise<T>, then: (v: T) => void | Promise<void>): void | Promise<void> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/**
 * Scenario 2, engine overhead: the same chain and load as scenario 1 with the built-in TypeScript
 * components (Conveyor.Process.Router → Conveyor.Operation.Echo, the benchmark sending into the
 * process as the service), every message persisted. What is left is the engine and the store.
 * Larger pools than scenario 1 (cheap here) show how far group commit carries more concurrent
 * chains; pool size 2 with durability `normal` (no fsync) shows the engine's own CPU bound.
 * Run: node --import tsx bench/scenarios/engine-overhead.ts [--quick]
 */
import { describe, measureChain, type LoadFigures } from '../support/chain.ts';
import { plan, quick, runScenario } from '../support/results.ts';

const pools = quick ? [1, 2] : [1, 2, 4, 8, 32];
const payloadBytes = 64;

await runScenario(
  'engine-overhead',
  { ...plan, pools, payloadBytes, components: 'builtin', durability: 'full', driver: 'send into the process as the service' },
  async () => {
    const chain: Record<string, LoadFigures> = {};
    for (const poolSize of pools) {
      chain[`pool${poolSize}`] = await measureChain({ kind: 'builtin', poolSize, payloadBytes }, plan);
      describe(`built-in S→P→O, pool size ${poolSize}`, chain[`pool${poolSize}`]!);
    }
    const withoutFsync = await measureChain({ kind: 'builtin', poolSize: 2, payloadBytes, durability: 'normal' }, plan);
    describe('built-in S→P→O, pool size 2, durability normal (no fsync: analysis only)', withoutFsync);
    return { chain, withoutFsync };
  },
);

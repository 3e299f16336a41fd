/**
 * The long kill -9 soak: the fault suites of test/fault with many more kills. Prints each suite's
 * figures (seed, faults injected, checked, lost, duplicated); exits 1 when anything was lost or a
 * change was left half done. Not part of `npm run bench` (it measures correctness, not speed).
 *   node --import tsx bench/fault-soak.ts [--kills=N] [--only=stream,definition,migration,lookups,cluster] [--seed=S]
 * `cluster` needs PG_URL (a database the soak may create a schema in); it is skipped without it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery, dropSchema, pgUrl, uniqueSchema } from '../src/store/postgres/pg-test-support.ts';
import { clusterClaimFaults } from '../test/fault/scenarios/cluster-claim.ts';
import { definitionUpdateFaults } from '../test/fault/scenarios/definition-update.ts';
import { lookupImportFaults } from '../test/fault/scenarios/lookup-import.ts';
import { messageStreamFaults } from '../test/fault/scenarios/message-stream.ts';
import { migrationFaults } from '../test/fault/scenarios/migration.ts';
import { reportFigures, SeededRandom, type FaultFigures } from '../test/fault/support/fault-run.ts';
import { option } from './support/results.ts';

const kills = Number(option('kills') ?? 20);
const seedText = option('seed');
const suites = ['stream', 'definition', 'migration', 'lookups', 'cluster'] as const;
const only = option('only')?.split(',') ?? [...suites];
const unknown = only.filter((name) => !(suites as readonly string[]).includes(name));
if (!Number.isInteger(kills) || kills < 1 || unknown.length > 0) {
  console.error(
    `usage: bench/fault-soak.ts [--kills=N (≥ 1)] [--only=${suites.join(',')}] [--seed=S]${unknown.length ? ` — unknown: ${unknown.join(', ')}` : ''}`,
  );
  process.exit(2);
}

const runs: Record<(typeof suites)[number], (dir: string, random: SeededRandom) => Promise<FaultFigures>> = {
  stream: (dir, random) => messageStreamFaults({ dir, random, kills }),
  definition: (dir, random) => definitionUpdateFaults({ dir, random, kills }),
  migration: (dir, random) => migrationFaults({ dir, random, kills }),
  lookups: (dir, random) => lookupImportFaults({ dir, random, kills }),
  cluster: async (dir, random) => {
    const schema = uniqueSchema('soak');
    try {
      return await clusterClaimFaults({ dir, random, kills, storeUrl: `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}` });
    } finally {
      await dropSchema(schema);
    }
  },
};

let failed = false;
for (const suite of suites.filter((name) => only.includes(name))) {
  if (suite === 'cluster' && pgUrl === '') {
    console.log('FAULT cluster claim: skipped (PG_URL is not set)');
    continue;
  }
  if (suite === 'cluster') await adminQuery('SELECT 1'); // fail early on an unreachable database
  const random = new SeededRandom(seedText === undefined ? undefined : Number(seedText));
  const dir = mkdtempSync(join(tmpdir(), `conveyor-soak-${suite}-`));
  const started = performance.now();
  try {
    const figures = await runs[suite](dir, random);
    reportFigures(`${suite} soak (${((performance.now() - started) / 1000).toFixed(0)} s)`, random, figures);
    if (figures.lost > 0) failed = true;
  } catch (error) {
    console.log(`FAULT ${suite} soak: seed ${random.seed}: FAILED — ${error instanceof Error ? error.message : String(error)}`);
    failed = true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);

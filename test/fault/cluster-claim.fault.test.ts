/** kill -9 of PostgreSQL cluster nodes at random (seeded) instants while they claim requests: nothing lost, duplicates counted. */
import { afterAll, expect, it } from 'vitest';
import { describePg, dropSchema, pgUrl, uniqueSchema } from '../../src/store/postgres/pg-test-support.ts';
import { tempDir } from '../support/temp-dir.ts';
import { reportFigures, SeededRandom } from './support/fault-run.ts';
import { clusterClaimFaults } from './scenarios/cluster-claim.ts';

describePg('kill -9 of cluster nodes during claims (PostgreSQL)', () => {
  const dir = tempDir('conveyor-fault-cluster-');
  const schema = uniqueSchema('fault');
  afterAll(async () => {
    await dropSchema(schema);
    dir.remove();
  });

  it('records every request at least once across two kills', async () => {
    const random = new SeededRandom();
    const storeUrl = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
    const figures = await clusterClaimFaults({ dir: dir.path, random, kills: 2, storeUrl });
    reportFigures('cluster claim', random, figures);
    expect(figures.lost, `seed ${random.seed}`).toBe(0);
  }, 240_000);
});

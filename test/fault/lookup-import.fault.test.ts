/** kill -9 of a real server at random (seeded) instants during a lookup-table import: all tables old or all new. */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { reportFigures, SeededRandom } from './support/fault-run.ts';
import { lookupImportFaults } from './scenarios/lookup-import.ts';

describe('kill -9 during a lookup-table import', () => {
  const dir = tempDir('conveyor-fault-lookups-');
  afterAll(() => dir.remove());

  it('leaves every table of the previous import or every table of the new one', async () => {
    const random = new SeededRandom();
    const figures = await lookupImportFaults({ dir: dir.path, random, kills: 3 });
    reportFigures('lookup import', random, figures);
    expect(figures.lost, `seed ${random.seed}: ${figures.notes}`).toBe(0);
  }, 120_000);
});

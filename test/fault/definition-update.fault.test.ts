/** kill -9 of a real server at random (seeded) instants during a definition replace + update: old or new, never a mix. */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { reportFigures, SeededRandom } from './support/fault-run.ts';
import { definitionUpdateFaults } from './scenarios/definition-update.ts';

describe('kill -9 during a definition replace + update', () => {
  const dir = tempDir('conveyor-fault-definition-');
  afterAll(() => dir.remove());

  it('leaves the old or the new definition, complete, and runs it after a restart', async () => {
    const random = new SeededRandom();
    const figures = await definitionUpdateFaults({ dir: dir.path, random, kills: 4 });
    reportFigures('definition update', random, figures);
    expect(figures.lost, `seed ${random.seed}: ${figures.notes}`).toBe(0);
    expect(figures.notes).toMatch(/items not running after the restart 0$/);
  }, 180_000);
});

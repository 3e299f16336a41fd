/**
 * kill -9 of a real server at random (seeded) instants during a message stream: nothing lost,
 * duplicates counted. The long soak is `bench/fault-soak.ts`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { reportFigures, SeededRandom } from './support/fault-run.ts';
import { messageStreamFaults } from './scenarios/message-stream.ts';

describe('kill -9 during a message stream', () => {
  const dir = tempDir('conveyor-fault-stream-');
  afterAll(() => dir.remove());

  it('loses no message across three kills at random instants', async () => {
    const random = new SeededRandom();
    const figures = await messageStreamFaults({ dir: dir.path, random, kills: 3 });
    reportFigures('message stream', random, figures);
    expect(figures.checked).toBeGreaterThan(0);
    expect(figures.lost, `seed ${random.seed}`).toBe(0);
  }, 180_000);
});

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processExists } from './process-exists.ts';

describe('processExists', () => {
  it('is true for this process and false for one that has ended', () => {
    expect(processExists(process.pid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(processExists(ended)).toBe(false);
  });
});

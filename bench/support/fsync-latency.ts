/**
 * How long this disk takes to make an appended write durable: 8 KB appended to a file, then
 * `fdatasync`, timed together, as a group commit of durability `full` does to the WAL. The sync
 * hop's bar at `full` is this figure's p99 plus 1 ms. The file lives where the bench's stores do.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latencies, type LatencySummary } from './stats.ts';

export function fsyncLatency(syncs = 400): LatencySummary {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-bench-fsync-'));
  const fd = openSync(join(dir, 'probe'), 'w');
  const page = Buffer.alloc(8192, 1);
  const samples: number[] = [];
  try {
    for (let i = 0; i < syncs; i++) {
      const started = performance.now();
      writeSync(fd, page);
      fdatasyncSync(fd);
      samples.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return latencies(samples);
}

/**
 * Versioned schema migrations, shared by every driver. A driver supplies its ordered list of
 * named steps (step N is schema version N) and a small host that knows how to run a transaction
 * and read/write its migrations table; this runner decides what to apply.
 *
 * Rules: all pending steps run in ONE transaction at open (a failed step leaves the database at
 * its old version); a database whose recorded version is newer than the newest step this build
 * knows is refused, because this build would misread tables it does not know; a recorded step
 * whose name differs from this build's step of the same version is refused too (two diverged
 * builds must not share a database).
 */
import { ConveyorError } from '../core/errors.ts';

export interface MigrationStep<Ctx> {
  /** Stable, unique, never renamed once released: it is recorded in the database. */
  name: string;
  apply(ctx: Ctx): Promise<void> | void;
}

export interface AppliedMigration {
  version: number;
  name: string;
}

export interface MigrationHost<Ctx> {
  /** Runs `work` in one transaction that keeps other openers from migrating at the same time. */
  transaction<T>(work: (ctx: Ctx) => Promise<T>): Promise<T>;
  /** Creates the migrations table when missing and returns its rows. */
  applied(ctx: Ctx): Promise<AppliedMigration[]>;
  record(ctx: Ctx, migration: AppliedMigration, appliedAt: number): Promise<void>;
}

export interface MigrationOutcome {
  from: number;
  to: number;
  applied: string[];
}

export async function migrate<Ctx>(host: MigrationHost<Ctx>, steps: readonly MigrationStep<Ctx>[], storeLabel: string): Promise<MigrationOutcome> {
  assertUniqueNames(steps);
  return host.transaction(async (ctx) => {
    const applied = await host.applied(ctx);
    const from = applied.reduce((max, row) => Math.max(max, row.version), 0);
    if (from > steps.length) {
      throw new ConveyorError('ERR_STORE', `The ${storeLabel} has schema version ${from}, newer than this Conveyor knows (${steps.length})`, {
        hint: 'Run a Conveyor version at least as new as the one that last opened this database.',
        details: { databaseVersion: from, knownVersion: steps.length },
      });
    }
    for (const row of applied) {
      const expected = steps[row.version - 1];
      if (expected === undefined || expected.name !== row.name) {
        throw new ConveyorError(
          'ERR_STORE',
          `The ${storeLabel} recorded migration ${row.version} as "${row.name}", but this Conveyor expects "${expected?.name ?? '(none)'}"`,
          {
            hint: 'The database was written by a different build of Conveyor; do not share it between builds.',
          },
        );
      }
    }
    const names: string[] = [];
    for (let version = from + 1; version <= steps.length; version += 1) {
      const step = steps[version - 1]!;
      try {
        await step.apply(ctx);
      } catch (error) {
        throw new ConveyorError(
          'ERR_STORE',
          `Migration ${version} ("${step.name}") of the ${storeLabel} failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
          },
        );
      }
      await host.record(ctx, { version, name: step.name }, Date.now());
      names.push(step.name);
    }
    return { from, to: steps.length, applied: names };
  });
}

function assertUniqueNames(steps: readonly MigrationStep<unknown>[]): void {
  const seen = new Set<string>();
  for (const step of steps) {
    if (seen.has(step.name)) throw new ConveyorError('ERR_INTERNAL', `Two migration steps are named "${step.name}"`);
    seen.add(step.name);
  }
}

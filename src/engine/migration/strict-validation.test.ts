// IoP's strict_production_validation on a server-side migration: a real python3 worker reads the
// settings file; with strict on, a DSL production with validation issues refuses the whole migration.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { migrateSettings } from './migrate.ts';

const components = [
  'from iop import BusinessOperation, setting',
  '',
  '',
  'class Counter(BusinessOperation):',
  "    limit: int = setting(5, description='How many')",
  '',
  '    def on_message(self, request):',
  '        return None',
  '',
].join('\n');

/** A DSL production whose item names a Host setting its class does not declare (`Limitt`). */
const settingsWithIssue = [
  'from iop import Production',
  'from comps import Counter',
  '',
  "prod = Production('Demo.Strict')",
  "prod.operation('Count', Counter, settings={'Limitt': '3'})",
  'CLASSES = {"Python.Counter": Counter}',
  'PRODUCTIONS = [prod]',
  '',
].join('\n');

let store: Store;
let workDir: string;
let settingsPath: string;

beforeEach(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'conveyor-strict-'));
  store = await openStore({ sqlitePath: join(workDir, 'store.sqlite'), durability: 'normal' });
  writeFileSync(join(workDir, 'comps.py'), components);
  settingsPath = join(workDir, 'settings.py');
  writeFileSync(settingsPath, settingsWithIssue);
});

afterEach(async () => {
  await store.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('strict production validation on a server-side migration', () => {
  it('refuses the migration with the validation issue, and writes nothing (no class, no production)', async () => {
    const error = await migrateSettings(store, 'USER', settingsPath, { strictProductionValidation: true }).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
    expect((error as Error).message).toContain('Production validation: Demo.Strict');
    expect((error as Error).message).toContain('items.Count.settings.Host.Limitt: Unknown setting name');
    expect(await store.productions.get('USER', 'Demo.Strict')).toBeNull();
    expect(await store.classes.get('USER', 'Python.Counter')).toBeNull();
  }, 60_000);

  it('without strict (the default) migrates the same file: the issue is only a warning', async () => {
    const report = await migrateSettings(store, 'USER', settingsPath);
    expect(report.productions).toEqual(['Demo.Strict']);
    expect(report.output).toContain('Validation warning: Demo.Strict: setting items.Count.settings.Host.Limitt: Unknown setting name.');
    expect(await store.productions.get('USER', 'Demo.Strict')).not.toBeNull();
    expect(await migrateSettings(store, 'USER', settingsPath, { strictProductionValidation: false })).toMatchObject({ productions: ['Demo.Strict'] });
  }, 60_000);

  it('with strict, a production without issues migrates', async () => {
    writeFileSync(settingsPath, settingsWithIssue.replace("'Limitt'", "'limit'"));
    const report = await migrateSettings(store, 'USER', settingsPath, { strictProductionValidation: true });
    expect(report.productions).toEqual(['Demo.Strict']);
    expect(report.output.filter((line) => line.startsWith('Validation'))).toEqual([]);
  }, 60_000);
});

import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { migratePackage, recoverPackageSwaps, swapOwner, type PackageFile } from './package-swap.ts';

let store: Store;
let workDir: string;
let folder: string;
const owner = 'test-host:/home/test';

beforeEach(async () => {
  workDir = realpathSync(mkdtempSync(join(tmpdir(), 'conveyor-swap-')));
  folder = join(workDir, 'packages');
  mkdirSync(folder);
  store = await openStore({ sqlitePath: join(workDir, 'store.sqlite'), durability: 'normal' });
});

afterEach(async () => {
  await store.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** A package whose one operation and one production carry `version`, so old and new can be told apart. */
function packageFiles(version: string, settingsExtra = ''): PackageFile[] {
  return [
    { name: 'ops.py', data: `from iop import BusinessOperation\n\nclass Op(BusinessOperation):\n    Version = '${version}'\n` },
    {
      name: 'settings.py',
      data: [
        'import os',
        'from ops import Op',
        "CLASSES = {'Demo.Op': Op}",
        `PRODUCTIONS = [{'Demo.Production': {'@Name': 'Demo.Production', 'Description': '${version}', 'Item': [{'@Name': 'Op', '@ClassName': 'Demo.Op', 'Setting': [{'@Target': 'Host', '@Name': 'Folder', '#text': os.path.dirname(os.path.abspath(__file__))}]}]}}]`,
        settingsExtra,
      ].join('\n'),
    },
  ];
}

const upload = (files: PackageFile[]) => ({ folder, packageName: 'python', files, settingsFile: 'settings.py' });

/** What is on disk beside the package: nothing but the package folder itself. */
const folderEntries = () => readdirSync(folder).sort();

async function storedVersion(): Promise<string | undefined> {
  return (await store.productions.get('USER', 'Demo.Production'))?.definition.description;
}

describe('migratePackage', () => {
  it('puts the validated package in place, records its final paths and leaves nothing behind', async () => {
    const report = await migratePackage(store, 'USER', upload(packageFiles('v1')), { owner });
    expect(report.classes).toEqual(['Demo.Op']);
    expect(report.productions).toEqual(['Demo.Production']);
    const packageDir = join(folder, 'python');
    expect(readFileSync(join(packageDir, 'ops.py'), 'utf8')).toContain("Version = 'v1'");
    expect(statSync(join(packageDir, 'ops.py')).mode & 0o777).toBe(0o600);
    expect((await store.classes.get('USER', 'Demo.Op'))?.classpaths).toEqual([packageDir]);
    const definition = (await store.productions.get('USER', 'Demo.Production'))?.definition;
    expect(definition?.items[0]?.settings).toEqual([{ target: 'Host', name: 'Folder', value: packageDir }]);
    expect(folderEntries()).toEqual(['python']);
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it('replaces a previous version completely (no file of the old one survives)', async () => {
    await migratePackage(store, 'USER', upload([...packageFiles('v1'), { name: 'old_only.py', data: 'x = 1\n' }]), { owner });
    await migratePackage(store, 'USER', upload(packageFiles('v2')), { owner });
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toContain("Version = 'v2'");
    expect(existsSync(join(folder, 'python', 'old_only.py'))).toBe(false);
    expect(await storedVersion()).toBe('v2');
    expect(folderEntries()).toEqual(['python']);
  });

  it('keeps the old package and the old registrations when the new settings.py fails', async () => {
    await migratePackage(store, 'USER', upload(packageFiles('v1')), { owner });
    const error = await migratePackage(store, 'USER', upload(packageFiles('v2', "raise ValueError('rejected')")), { owner }).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
    expect((error as Error).message).toContain('rejected');
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toContain("Version = 'v1'");
    expect(await storedVersion()).toBe('v1');
    expect(folderEntries()).toEqual(['python']);
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it('leaves nothing behind when the disk refuses a file', async () => {
    // checkFiles (src/api) refuses this upfront; the swap must still clean up when the disk refuses.
    const files = [...packageFiles('v1'), { name: 'a', data: '' }, { name: 'a/b.py', data: '' }];
    await expect(migratePackage(store, 'USER', upload(files), { owner })).rejects.toThrow();
    expect(folderEntries()).toEqual([]);
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it('replaces a package that is a link by a real folder, leaving the folder it pointed to untouched', async () => {
    const elsewhere = join(workDir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'keep.txt'), 'keep');
    symlinkSync(elsewhere, join(folder, 'python'));
    await migratePackage(store, 'USER', upload(packageFiles('v1')), { owner });
    expect(readdirSync(elsewhere)).toEqual(['keep.txt']);
    expect(lstatSync(join(folder, 'python')).isDirectory()).toBe(true);
    expect(folderEntries()).toEqual(['python']);
  });

  it('writes nothing when the namespace does not exist', async () => {
    const error = await migratePackage(store, 'NOPE', upload(packageFiles('v1')), { owner }).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_NAMESPACE_UNKNOWN')).toBe(true);
    expect(folderEntries()).toEqual([]);
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it('runs two uploads of one package one after the other, the last one winning', async () => {
    await Promise.all([
      migratePackage(store, 'USER', upload(packageFiles('v1')), { owner }),
      migratePackage(store, 'USER', upload(packageFiles('v2')), { owner }),
    ]);
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toContain("Version = 'v2'");
    expect(await storedVersion()).toBe('v2');
    expect(folderEntries()).toEqual(['python']);
  });
});

describe('recoverPackageSwaps (the states a kill -9 can leave)', () => {
  /** Lays out the old package, and a staged new one journaled as `committed` or not. */
  async function crashed(committed: boolean, step: 'staged' | 'old-moved-aside'): Promise<string> {
    await migratePackage(store, 'USER', upload(packageFiles('v1')), { owner });
    const id = `crash${committed ? 'c' : 'u'}`;
    const staging = join(folder, `.python.staged-${id}`);
    await store.settingsMigrations.stageSwap({ id, owner, folder, packageName: 'python', staging });
    mkdirSync(join(staging, 'python'), { recursive: true });
    writeFileSync(join(staging, 'python', 'ops.py'), "Version = 'v2'\n");
    if (committed) await store.settingsMigrations.commit('USER', { classes: [], schemas: [], productions: [] }, id);
    if (step === 'old-moved-aside') {
      const { renameSync } = await import('node:fs');
      renameSync(join(folder, 'python'), join(staging, '.previous'));
    }
    return staging;
  }

  it('discards an uncommitted switch: the old package stays, the staging folder goes', async () => {
    await crashed(false, 'staged');
    expect(await recoverPackageSwaps(store, owner)).toEqual([{ packageDir: join(folder, 'python'), outcome: 'discarded' }]);
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toContain("Version = 'v1'");
    expect(folderEntries()).toEqual(['python']);
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it('finishes a committed switch that had not touched the package yet', async () => {
    await crashed(true, 'staged');
    expect(await recoverPackageSwaps(store, owner)).toEqual([{ packageDir: join(folder, 'python'), outcome: 'finished' }]);
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toBe("Version = 'v2'\n");
    expect(folderEntries()).toEqual(['python']);
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it('finishes a committed switch killed between its two renames (no package folder at all)', async () => {
    await crashed(true, 'old-moved-aside');
    expect(existsSync(join(folder, 'python'))).toBe(false);
    await recoverPackageSwaps(store, owner);
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toBe("Version = 'v2'\n");
    expect(folderEntries()).toEqual(['python']);
  });

  it('finishes a committed switch whose staging folder was already removed (only the journal row is left)', async () => {
    const staging = await crashed(true, 'staged');
    const { renameSync } = await import('node:fs');
    rmSync(join(folder, 'python'), { recursive: true });
    renameSync(join(staging, 'python'), join(folder, 'python'));
    rmSync(staging, { recursive: true });
    await recoverPackageSwaps(store, owner);
    expect(readFileSync(join(folder, 'python', 'ops.py'), 'utf8')).toBe("Version = 'v2'\n");
    expect(await store.settingsMigrations.swaps(owner)).toEqual([]);
  });

  it("leaves another server's switches alone", async () => {
    const staging = join(folder, '.python.staged-other');
    mkdirSync(staging);
    await store.settingsMigrations.stageSwap({ id: 'other', owner: 'elsewhere:/home/x', folder, packageName: 'python', staging });
    expect(await recoverPackageSwaps(store, owner)).toEqual([]);
    expect(existsSync(staging)).toBe(true);
    expect(await store.settingsMigrations.swaps('elsewhere:/home/x')).toHaveLength(1);
  });

  it('names the owner by host and home', () => {
    expect(swapOwner('/srv/home')).toMatch(/^.+:\/srv\/home$/);
  });
});

/**
 * `PUT /migrate` all-or-nothing across kill -9: the uploaded files are staged beside the package,
 * the settings.py migration runs against the staged copy, and only once it succeeded are its
 * registrations committed in the same store transaction that marks the package switch committed.
 * The staged folder then takes the package's place. The switch is journaled in the store before
 * anything is written, so a restart finishes a committed switch and discards an uncommitted one
 * (`recoverPackageSwaps`): after any crash either the old package with the old registrations or the
 * new package with the new ones is live, and no staging folder is left.
 *
 * Running items keep importing the old package until the new one was validated: the package folder
 * itself is not touched before the commit.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, relative, sep, isAbsolute } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';
import type { MigrationRegistrations, PackageSwap, Store } from '../../store/store.ts';
import type { MigrationReport } from '../namespace-operations.ts';
import { checkIrisClasses } from './iris-class-check.ts';
import { prepareMigration, type MigrateOptions } from './migrate.ts';

export interface PackageFile {
  /** Relative, `/`-separated, already checked (src/api/package-upload.ts `checkFiles`). */
  name: string;
  /** The UTF-8 text of the file. */
  data: string;
}

export interface PackageUpload {
  /** The existing folder that holds the package folder. */
  folder: string;
  /** A plain folder name (checked by `checkPackageName`). */
  packageName: string;
  files: PackageFile[];
  /** The settings file's name among `files`. */
  settingsFile: string;
}

export interface PackageMigrateOptions extends MigrateOptions {
  /** Who journals the switch (default `swapOwner()`); only that owner recovers it. */
  owner?: string;
}

export interface RecoveredSwap {
  packageDir: string;
  /** `finished`: the committed new package was put in place; `discarded`: the uncommitted one was removed. */
  outcome: 'finished' | 'discarded';
}

/** The server a switch belongs to: this host and the home it serves (several homes may share a PostgreSQL store). */
export function swapOwner(home: string = process.env['CONVEYOR_HOME'] ?? process.cwd()): string {
  return `${hostname()}:${home}`;
}

/** Replaces `<folder>/<packageName>` with the files and migrates it; on any failure nothing changes. */
export async function migratePackage(store: Store, namespace: string, upload: PackageUpload, options: PackageMigrateOptions = {}): Promise<MigrationReport> {
  // Resolved synchronously so that uploads join the queue in the order they were made (an awaited
  // realpath lets a later upload overtake an earlier one, and the earlier one would then win).
  const folder = realpathSync(upload.folder);
  const packageDir = join(folder, upload.packageName);
  return serialized(packageDir, async () => {
    const id = randomBytes(8).toString('hex');
    const swap: PackageSwap = {
      id,
      owner: options.owner ?? swapOwner(),
      folder,
      packageName: upload.packageName,
      staging: join(folder, `.${upload.packageName}.staged-${id}`),
      committed: false,
      createdAt: Date.now(),
    };
    // Journaled before the first file is written: from here on a kill is cleaned up at the next start.
    await store.settingsMigrations.stageSwap(swap);
    let report: MigrationReport;
    try {
      const staged = join(swap.staging, upload.packageName);
      await writeStaged(staged, upload.files);
      const prepared = await prepareMigration(join(staged, upload.settingsFile), options);
      await checkIrisClasses(prepared.registrations, async (name) => (await store.classes.get(namespace, name)) !== null);
      report = prepared.report;
      await store.settingsMigrations.commit(namespace, relocate(prepared.registrations, swap.staging, folder), id);
    } catch (error) {
      // The caller gets the migration's own error. Should the clean-up fail too, the journal still
      // holds the switch and the next start completes it, so its failure is not reported over this one.
      await settle(store, swap).catch(() => undefined);
      throw error;
    }
    await finishSwap(store, swap);
    return report;
  });
}

/** After a failure: a commit whose answer was lost may still have happened, and then the new package must go in. */
async function settle(store: Store, swap: PackageSwap): Promise<void> {
  const journaled = (await store.settingsMigrations.swaps(swap.owner)).find((row) => row.id === swap.id);
  if (journaled?.committed) await finishSwap(store, swap);
  else await discardSwap(store, swap);
}

/** At server start, before any production runs: finishes committed switches and discards the others. */
export async function recoverPackageSwaps(store: Store, owner: string = swapOwner()): Promise<RecoveredSwap[]> {
  const recovered: RecoveredSwap[] = [];
  for (const swap of await store.settingsMigrations.swaps(owner)) {
    if (swap.committed) await finishSwap(store, swap);
    else await discardSwap(store, swap);
    recovered.push({ packageDir: join(swap.folder, swap.packageName), outcome: swap.committed ? 'finished' : 'discarded' });
  }
  return recovered;
}

/**
 * Puts the staged package in place. Every step can be repeated after a kill at any point: the new
 * package is still in the staging folder until its rename, and the old one waits there (as
 * `.previous`) until the staging folder is removed.
 */
async function finishSwap(store: Store, swap: PackageSwap): Promise<void> {
  const incoming = join(swap.staging, swap.packageName);
  const packageDir = join(swap.folder, swap.packageName);
  if (await exists(incoming)) {
    if (await exists(packageDir)) {
      const previous = join(swap.staging, '.previous');
      await rm(previous, { recursive: true, force: true });
      await rename(packageDir, previous);
    }
    await rename(incoming, packageDir);
    await syncFolder(swap.folder);
  }
  await rm(swap.staging, { recursive: true, force: true });
  await store.settingsMigrations.forgetSwap(swap.id);
}

async function discardSwap(store: Store, swap: PackageSwap): Promise<void> {
  await rm(swap.staging, { recursive: true, force: true });
  await store.settingsMigrations.forgetSwap(swap.id);
}

/**
 * Paths the settings file computed inside the staged copy (the classpaths of every binding, and any
 * setting built from `__file__`) are recorded as the place the package is about to take.
 */
function relocate(registrations: MigrationRegistrations, staging: string, folder: string): MigrationRegistrations {
  const quoted = (text: string) => JSON.stringify(text).slice(1, -1);
  return JSON.parse(JSON.stringify(registrations).replaceAll(quoted(staging), quoted(folder))) as MigrationRegistrations;
}

/** Writes the files (private to the server's user) and flushes them, so a committed switch never finds them missing. */
async function writeStaged(root: string, files: PackageFile[]): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const realRoot = await realpath(root);
  for (const file of files) {
    const destination = join(root, ...file.name.split('/'));
    await mkdir(dirname(destination), { recursive: true, mode: 0o700 });
    // Defence in depth: the staging folder is fresh, so no link can lead out of it; check anyway.
    if (!inside(realRoot, await realpath(dirname(destination)))) {
      throw new ConveyorError('ERR_UNSAFE_PATH', `The file name ${JSON.stringify(file.name)} leads outside the package through a link`);
    }
    const handle = await open(destination, 'wx', 0o600);
    try {
      await handle.writeFile(file.data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Makes the renames in a folder durable (a power loss after the commit still finds the new package). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

const queues = new Map<string, Promise<unknown>>();

/** Uploads of the same package folder run one after the other. */
function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return next;
}

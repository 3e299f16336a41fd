/**
 * `-m PATH`: migrate a settings file. Remote mode uploads the settings file's folder (spec `PUT /migrate`)
 * as the package named by REMOTE_SETTINGS (`package`, default `python`; `remote_folder`); local mode asks
 * the home's server to migrate the files in place, where they are (beyond-spec `local_path`).
 */
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConveyorError, isConveyorError } from '../core/errors.ts';
import type { MigrateReport } from '../client/replies.ts';
import type { CommandContext } from './context.ts';
import { collectPackageFiles } from './package-files.ts';
import { progressStyle, type ProgressView } from './progress-view.ts';
import { viewFor } from './progress-watch.ts';
import { readRemoteSettings } from './remote-settings.ts';

export const defaultPackageName = 'python';

export async function migrateAction(ctx: CommandContext): Promise<void> {
  const { command, io, mode } = ctx;
  const settingsPath = resolve(io.cwd, command.value!);
  const stats = statSync(settingsPath, { throwIfNoEntry: false });
  if (!stats) throw new ConveyorError('ERR_CONFIG', `The settings file ${settingsPath} does not exist`);
  if (!stats.isFile()) throw new ConveyorError('ERR_CONFIG', `${settingsPath} is not a file: -m takes the path of a settings.py`);
  const report = mode.kind === 'remote' ? await uploadAndMigrate(ctx, settingsPath) : await migrateInPlace(ctx, settingsPath);
  for (const line of report.output ?? []) io.out(line);
  io.out(`Migrated ${settingsPath}`);
}

/**
 * The server runs the settings file and writes every registration in one transaction: there are no
 * items to count, so a terminal gets a spinner with the phase (plain output gets nothing extra).
 */
function migrationSpinner(ctx: CommandContext, settingsPath: string): ProgressView | undefined {
  return progressStyle(ctx.io) === 'live' ? viewFor(ctx.io, `Migrating ${settingsPath} (running it, then registering what it declares)`) : undefined;
}

async function migrateInPlace(ctx: CommandContext, settingsPath: string): Promise<MigrateReport> {
  const spinner = migrationSpinner(ctx, settingsPath);
  try {
    return await ctx.client.migrateLocal(settingsPath, ctx.command.strictProductionValidation === true);
  } catch (error) {
    // A server that predates `local_path` reads the call as an upload without a package.
    if (isConveyorError(error, 'ERR_SERVER') && /package is required/i.test(error.message)) {
      throw new ConveyorError(
        'ERR_SERVER',
        `The server at ${ctx.client.transport.target} cannot migrate files in place (it does not take PUT /migrate with local_path)`,
        {
          hint: 'update the server, or upload the package instead: CLI_URL=<the server URL> cli -m ' + settingsPath,
        },
      );
    }
    throw error;
  } finally {
    spinner?.finish();
  }
}

async function uploadAndMigrate(ctx: CommandContext, settingsPath: string): Promise<MigrateReport> {
  const { io, client } = ctx;
  const read = readRemoteSettings(settingsPath);
  const packageName = read.settings.package || defaultPackageName;
  const collected = collectPackageFiles(dirname(settingsPath));
  for (const name of collected.skippedBinary) io.err(`Skipped ${name}: not UTF-8 text (the migrate upload carries text files only)`);
  const settingsFile = basename(settingsPath);
  const upload = {
    package: packageName,
    ...(read.settings.remote_folder ? { remote_folder: read.settings.remote_folder } : {}),
    body: collected.files,
    ...(settingsFile === 'settings.py' ? {} : { settings_file: settingsFile }),
    ...(ctx.command.strictProductionValidation === true ? { strict_production_validation: true } : {}),
  };
  io.err(`Uploading ${collected.files.length} files (${formatBytes(collected.bytes)}) from ${dirname(settingsPath)} as package ${packageName}`);
  const progress = progressStyle(io) === 'live' ? await progressBar() : undefined;
  let spinner: ProgressView | undefined;
  // Once the last byte is sent, the server runs the migration: the bar gives way to a spinner.
  const update = (sent: number, total: number) => {
    if (spinner) return;
    progress?.update(sent, total);
    if (sent < total) return;
    progress?.stop();
    spinner = migrationSpinner(ctx, settingsPath);
  };
  try {
    return await client.migrate(upload, update);
  } finally {
    progress?.stop();
    spinner?.finish();
  }
}

/** A byte-count bar on stderr, drawn only on a terminal (cli-progress is loaded only then). */
async function progressBar(): Promise<{ update: (sent: number, total: number) => void; stop: () => void }> {
  const { SingleBar, Presets } = (await import('cli-progress')).default;
  const bar = new SingleBar(
    { format: 'Uploading [{bar}] {percentage}% {value}/{total} bytes', stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  let begun = false;
  return {
    update(sent, total) {
      if (!begun) {
        bar.start(total, 0);
        begun = true;
      }
      bar.update(sent);
    },
    stop: () => {
      if (begun) bar.stop();
      begun = false;
    },
  };
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

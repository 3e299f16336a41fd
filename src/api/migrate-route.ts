/**
 * `PUT /migrate`: upload a Python package and run its settings.py migration (spec "Migrate body",
 * iop-reference §3.6). Answers 200 with an empty body; every failure is a 500 `{error}`. Beyond the
 * spec, `local_path` (local socket only) migrates a settings.py in place and answers `{output}`.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import * as spec from '../core/contract/spec-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import type { MigrationChoices } from '../engine/migration/migrate.ts';
import type { EngineOperations, NamespaceOperations } from '../engine/namespace-operations.ts';
import type { ResolvedApiOptions } from './options.ts';
import { checkFiles, checkPackageName, checkRelativeName, resolveTargetFolder } from './package-upload.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { given } from './spec-routes.ts';
import { isLocal } from './auth.ts';

export function registerMigrateRoute(root: FastifyInstance, engine: EngineOperations, options: ResolvedApiOptions, catalog: RouteCatalog | null): void {
  serve(contractScope(root), catalog, spec.migrate, async (request, reply) => {
    const namespace = await namespaceOf(request, engine);
    const body = request.body;
    const localPath = given(body.local_path);
    // IoP's strict flag (its clients send it in this body): validation issues of a production refuse the migration.
    const choices = { strictProductionValidation: body.strict_production_validation === true };
    if (localPath !== undefined) {
      const output = await migrateInPlace(namespace, localPath, isLocal(request.raw), choices);
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify({ output }));
    }
    const packageName = given(body.package);
    if (packageName === undefined) throw new ConveyorError('ERR_INVALID_INPUT', 'package is required: the folder name of the package to write');
    checkPackageName(packageName);
    if (body.body === undefined) throw new ConveyorError('ERR_INVALID_INPUT', 'body is required: an array of {name, data} files to write');
    const files = checkFiles(body.body);
    const settingsFile = given(body.settings_file) ?? 'settings.py';
    checkRelativeName(settingsFile, 'settings_file');
    if (!files.some((file) => file.name === settingsFile)) {
      throw new ConveyorError('ERR_INVALID_INPUT', `${settingsFile} is not among the uploaded files; the migration needs it`, {
        hint: 'Upload the folder holding settings.py, or name the entry file with settings_file',
      });
    }
    const folder = await resolveTargetFolder(given(body.remote_folder), options.packagesDir(namespace.name), options.allowedRoots);
    // Staged, validated, then switched in: all or nothing across kill -9 (src/engine/migration/package-swap.ts).
    const report = await namespace.migratePackage({ folder, packageName, files, settingsFile }, choices);
    request.log.info({ namespace: namespace.name, package: packageName, folder, files: files.length, output: report.output }, 'package migrated');
    return reply.code(200).type('application/json; charset=utf-8').send('');
  });
}

/**
 * Beyond the spec: the local-mode CLI (`cli -m` without a remote) asks the server of its home to
 * migrate a settings.py where it lies. Only over the home's Unix socket: a remote caller could
 * otherwise make the server import any Python file on its disk.
 */
async function migrateInPlace(namespace: NamespaceOperations, localPath: string, local: boolean, choices: MigrationChoices): Promise<string[]> {
  if (!local) {
    throw new ConveyorError('ERR_FORBIDDEN', "local_path is accepted only over the server's local socket", {
      hint: 'Upload the package instead (package and body)',
    });
  }
  if (!isAbsolute(localPath)) throw new ConveyorError('ERR_INVALID_INPUT', `local_path must be an absolute path, got ${localPath}`);
  const info = await stat(localPath).catch(() => null);
  if (!info?.isFile()) throw new ConveyorError('ERR_INVALID_INPUT', `The settings file ${localPath} does not exist`);
  return (await namespace.migrate(localPath, choices)).output;
}

/**
 * `PUT /migrate`: upload a Python package and run its settings.py migration (spec "Migrate body",
 * iop-reference §3.6). Answers 200 with an empty body; every failure is a 500 `{error}`.
 */
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import type { EngineApi } from '../engine/engine-api.ts';
import type { ResolvedApiOptions } from './options.ts';
import { checkFiles, checkPackageName, checkRelativeName, replacePackage, resolveTargetFolder } from './package-upload.ts';
import { bodyObject, optionalString, requestNamespace, requiredString } from './request-input.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';

export function registerMigrateRoute(scope: FastifyInstance, engine: EngineApi, options: ResolvedApiOptions, catalog: RouteCatalog | null): void {
  addRoute(
    scope,
    catalog,
    {
      method: 'PUT',
      url: '/migrate',
      role: 'admin',
      spec: true,
      tag: 'Productions',
      summary: 'Upload a Python package (replacing its previous version) and run its settings.py migration',
      parameters: [s.namespaceQuery],
      body: { schema: s.migrateBodySchema, required: true },
      responses: { 200: { description: 'Migrated; the body is empty' } },
    },
    async (request, reply) => {
      const namespace = await requestNamespace(request, engine);
      const body = bodyObject(request);
      const packageName = requiredString(body, 'package', 'the folder name of the package to write');
      checkPackageName(packageName);
      if (body.body === undefined || body.body === null) throw new ConveyorError('ERR_INVALID_INPUT', 'body is required: an array of {name, data} files to write');
      const files = checkFiles(body.body);
      const settingsFile = optionalString(body, 'settings_file') ?? 'settings.py';
      checkRelativeName(settingsFile, 'settings_file');
      if (!files.some((file) => file.name === settingsFile)) {
        throw new ConveyorError('ERR_INVALID_INPUT', `${settingsFile} is not among the uploaded files; the migration needs it`, {
          hint: 'Upload the folder holding settings.py, or name the entry file with settings_file',
        });
      }
      const folder = await resolveTargetFolder(optionalString(body, 'remote_folder'), options.packagesDir(namespace), options.allowedRoots);
      const report = await replacePackage(folder, packageName, files, (packageDir) => engine.migrate(namespace, `${packageDir}/${settingsFile}`));
      request.log.info({ namespace, package: packageName, folder, files: files.length, output: report.output }, 'package migrated');
      return reply.code(200).type('application/json; charset=utf-8').send('');
    },
  );
}

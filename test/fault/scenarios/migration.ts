/**
 * kill -9 at random instants during a migration: `PUT /migrate` uploads (the package switch) and
 * in-place migrations (`local_path`, the local-mode `cli -m`). After each restart the package files,
 * every class binding, the production and the schema must all carry one version, the previous or
 * the new one; beside the package folder nothing may be left, and the switch journal must be empty.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '../../../src/store/open-store.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { sleep, type FaultFigures, type SeededRandom } from '../support/fault-run.ts';

export interface MigrationFaultOptions {
  dir: string;
  random: SeededRandom;
  kills: number;
}

export const production = 'Fault.Migration';
const classCount = 5;

/** The files of version `version`: every class, the production and the message schema say it. */
export function packageFiles(version: number, settingsTail = ''): Array<{ name: string; data: string }> {
  const classes = Array.from({ length: classCount }, (_, i) => `class Op${i}(VersionOp):\n    pass\n`).join('\n');
  return [
    {
      name: 'ops.py',
      data: [
        'from iop import BusinessOperation',
        'from messages import VersionRequest, VersionResponse',
        '',
        'class VersionOp(BusinessOperation):',
        `    Version = 'v${version}'`,
        '',
        '    def on_version(self, request: VersionRequest):',
        '        return VersionResponse(version=self.Version)',
        '',
        classes,
      ].join('\n'),
    },
    {
      name: 'messages.py',
      data: [
        'from dataclasses import dataclass',
        'from iop import Message',
        '',
        '@dataclass',
        'class VersionRequest(Message):',
        '    text: str = None',
        '',
        '@dataclass',
        'class VersionResponse(Message):',
        '    version: str = None',
        `    v${version}: str = None`,
      ].join('\n'),
    },
    {
      name: 'settings.py',
      data: [
        'import ops',
        'from messages import VersionResponse',
        `CLASSES = {${Array.from({ length: classCount }, (_, i) => `'Fault.Op${i}': ops.Op${i}`).join(', ')}}`,
        `PRODUCTIONS = [{'${production}': {'@Name': '${production}', 'Description': 'version ${version}', 'ActorPoolSize': '1', 'Item': [{'@Name': 'Op', '@ClassName': 'Fault.Op0'}]}}]`,
        'SCHEMAS = [VersionResponse]',
        settingsTail,
      ].join('\n'),
    },
  ];
}

/** One version everywhere, or a description of the mix. */
export interface Observed {
  files: string | null;
  classes: string[];
  production: string | null;
  schema: string | null;
  leftovers: string[];
  journal: number;
}

export async function observe(home: string, packageDir: string | null): Promise<Observed> {
  const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
  try {
    const classes = (await store.classes.list('USER')).map((binding) => String(binding.settings.find((s) => s.name === 'Version')?.defaultValue ?? '?'));
    const description = (await store.productions.get('USER', production))?.definition.description ?? null;
    const schema = (await store.schemas.get('USER', 'messages.VersionResponse'))?.schema ?? null;
    const swaps = await store.settingsMigrations.swaps(`${(await import('node:os')).hostname()}:${home}`);
    const packages = join(home, 'packages', 'USER');
    const ops = packageDir === null ? null : join(packageDir, 'ops.py');
    return {
      files: ops !== null && existsSync(ops) ? (/Version = '(v\d+)'/.exec(await readFile(ops, 'utf8'))?.[1] ?? '?') : null,
      classes,
      production: description?.replace('version ', 'v') ?? null,
      schema: schema === null ? null : (/"(v\d+)"/.exec(schema)?.[1] ?? '?'),
      leftovers: existsSync(packages) ? (await readdir(packages)).filter((name) => name !== 'python') : [],
      journal: swaps.length,
    };
  } finally {
    await store.close();
  }
}

/** The one version seen everywhere, or null when the state is mixed or something was left behind. */
export function singleVersion(seen: Observed, withFiles: boolean): string | null {
  const versions = new Set([...seen.classes, seen.production, seen.schema, ...(withFiles ? [seen.files] : [])]);
  if (seen.classes.length !== classCount || versions.size !== 1 || seen.leftovers.length > 0 || seen.journal > 0) return null;
  return [...versions][0] ?? null;
}

async function upload(server: ServerProcess, version: number): Promise<number> {
  return (await server.local('PUT', '/api/iop/migrate', { package: 'python', body: packageFiles(version) })).status;
}

export async function migrationFaults(options: MigrationFaultOptions): Promise<FaultFigures> {
  const { dir, random } = options;
  const home = join(dir, 'home');
  const packageDir = join(home, 'packages', 'USER', 'python');
  let server: ServerProcess | null = await startServerProcess(home);
  let current = 0;
  const outcomes = { old: 0, new: 0, mixed: 0 };
  try {
    const started = Date.now();
    if ((await upload(server, current)) !== 200) throw new Error('the first migration failed');
    // Kills land anywhere from before the request is read to a little after a migration's usual end.
    const span = Math.ceil((Date.now() - started) * 1.3);
    for (let kill = 0; kill < options.kills; kill++) {
      const next = current + 1;
      const inPlace = kill % 2 === 1;
      let localSettings: string | null = null;
      if (inPlace) {
        const folder = join(dir, `local-${next}`);
        await mkdir(folder, { recursive: true });
        for (const file of packageFiles(next)) await writeFile(join(folder, file.name), file.data);
        localSettings = join(folder, 'settings.py');
      }
      const request = (localSettings ? server.local('PUT', '/api/iop/migrate', { local_path: localSettings }) : upload(server, next)).catch(() => undefined);
      await sleep(random.between(0, span));
      await server.kill('SIGKILL');
      await request;
      server = await startServerProcess(home);
      const seen = await observe(home, inPlace ? null : packageDir);
      const version = singleVersion(seen, !inPlace);
      // An in-place migration leaves the package folder alone: its files keep the last uploaded version.
      if (version === `v${current}`) outcomes.old++;
      else if (version === `v${next}`) {
        outcomes.new++;
        current = next;
      } else {
        outcomes.mixed++;
        throw new Error(`after kill ${kill + 1} (${inPlace ? 'in place' : 'upload'}, v${current} → v${next}) the state is mixed: ${JSON.stringify(seen)}`);
      }
      if (inPlace) {
        // The next upload must start from package files and registrations of one version again.
        if ((await upload(server, current)) !== 200) throw new Error('re-uploading the current version failed');
      }
    }
    await server.kill('SIGTERM');
    server = null;
    return {
      faults: options.kills,
      checked: options.kills,
      lost: outcomes.mixed,
      duplicated: 0,
      notes: `after restart: old state ${outcomes.old}, new state ${outcomes.new}, mixed ${outcomes.mixed} (each state: ${classCount} classes, production, schema and, for uploads, the package files; no leftover folder, empty journal)`,
    };
  } finally {
    await server?.kill('SIGKILL');
  }
}

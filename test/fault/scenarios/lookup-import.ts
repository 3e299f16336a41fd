/**
 * kill -9 at random instants during a lookup-table import (`POST /lookups/import` of many tables):
 * after each restart every table holds the entries of one import, the previous or the new one, for
 * all tables alike.
 */
import { join } from 'node:path';
import { openStore } from '../../../src/store/open-store.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { sleep, type FaultFigures, type SeededRandom } from '../support/fault-run.ts';

export interface LookupImportOptions {
  dir: string;
  random: SeededRandom;
  kills: number;
}

const tableCount = 40;
const entriesPerTable = 150;

/** The IRIS lookup-table export of version `version`: every entry of every table says it. */
function exportXml(version: number): string {
  const entries: string[] = [];
  for (let t = 0; t < tableCount; t++) {
    for (let k = 0; k < entriesPerTable; k++) entries.push(`<entry table="Fault${t}" key="k${k}">v${version}</entry>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<lookupTable>\n${entries.join('\n')}\n</lookupTable>\n`;
}

/** The versions the tables hold (one entry per table and version seen). */
async function versions(home: string): Promise<{ tables: number; seen: Set<string> }> {
  const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
  try {
    const seen = new Set<string>();
    const names = (await store.lookups.tables('USER')).filter((name) => name.startsWith('Fault'));
    for (const name of names) {
      const entries = await store.lookups.get('USER', name);
      if (Object.keys(entries ?? {}).length !== entriesPerTable) seen.add(`${name} has ${Object.keys(entries ?? {}).length} entries`);
      for (const value of Object.values(entries ?? {})) seen.add(value);
    }
    return { tables: names.length, seen };
  } finally {
    await store.close();
  }
}

export async function lookupImportFaults(options: LookupImportOptions): Promise<FaultFigures> {
  const home = join(options.dir, 'home');
  let server: ServerProcess | null = await startServerProcess(home);
  let current = 0;
  const outcomes = { old: 0, new: 0, mixed: 0 };
  const importVersion = (target: ServerProcess, version: number) => target.local('POST', '/api/iop/lookups/import', { xml: exportXml(version) });
  try {
    const started = Date.now();
    if ((await importVersion(server, current)).status !== 200) throw new Error('the first import failed');
    const span = Math.ceil((Date.now() - started) * 1.3);
    for (let kill = 0; kill < options.kills; kill++) {
      const next = current + 1;
      const request = importVersion(server, next).catch(() => undefined);
      await sleep(options.random.between(0, span));
      await server.kill('SIGKILL');
      await request;
      server = await startServerProcess(home);
      const { tables, seen } = await versions(home);
      const only = seen.size === 1 && tables === tableCount ? [...seen][0] : null;
      if (only === `v${current}`) outcomes.old++;
      else if (only === `v${next}`) {
        outcomes.new++;
        current = next;
      } else {
        outcomes.mixed++;
        throw new Error(`after kill ${kill + 1} (v${current} → v${next}) the ${tables} tables hold ${[...seen].join(', ')}`);
      }
    }
    await server.kill('SIGTERM');
    server = null;
    return {
      faults: options.kills,
      checked: options.kills * tableCount,
      lost: outcomes.mixed,
      duplicated: 0,
      notes: `checked = tables compared after the kills (${tableCount} × ${entriesPerTable} entries per import); after restart: old import ${outcomes.old}, new import ${outcomes.new}, mixed ${outcomes.mixed}`,
    };
  } finally {
    await server?.kill('SIGKILL');
  }
}

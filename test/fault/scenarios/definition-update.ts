/**
 * kill -9 at random instants while a definition is replaced (`PUT /definition`) and applied to the
 * running production (`POST /update`). After each restart the stored definition must be exactly the
 * old one or exactly the new one, and starting it must run every enabled item of that definition.
 */
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { sleep, type FaultFigures, type SeededRandom } from '../support/fault-run.ts';

export interface DefinitionUpdateOptions {
  dir: string;
  random: SeededRandom;
  kills: number;
  /** Longest random wait between sending the change and the kill (ms). */
  maxKillDelayMs?: number;
}

const production = 'Fault.Definition';

/** Version k: a kept item whose setting changes (restarted by update), one item added and the previous one removed. */
function definition(version: number): unknown {
  const echo = (name: string) => ({
    name,
    classname: 'Conveyor.Operation.Echo',
    pool_size: 1,
    enabled: true,
    foreground: false,
    comment: `v${version}`,
    log_trace_events: false,
    schedule: '',
    settings: [{ target: 'Host', name: 'Prefix', value: `v${version}` }],
  });
  return {
    name: production,
    description: `version ${version}`,
    test_enabled: true,
    log_trace_events: false,
    actor_pool_size: 2,
    items: [echo('Kept'), echo(`Added${version}`), ...(version % 2 === 0 ? [echo('EvenOnly')] : [])],
  };
}

export async function definitionUpdateFaults(options: DefinitionUpdateOptions): Promise<FaultFigures> {
  const { random } = options;
  const home = join(options.dir, 'home');
  let server: ServerProcess | null = await startServerProcess(home);
  let version = 0;
  let old = 0;
  let renewed = 0;
  let mixed = 0;
  let notRunning = 0;
  try {
    await call(server, 'PUT', '/api/iop/definition', { definition: definition(version) });
    await call(server, 'POST', '/api/iop/start', { production });
    for (let kill = 0; kill < options.kills; kill++) {
      const next = version + 1;
      const change = (async () => {
        await call(server!, 'PUT', '/api/iop/definition', { definition: definition(next) });
        await call(server!, 'POST', '/api/iop/update', {});
      })().catch(() => undefined); // the kill cuts it short
      // A third of the kills land before the request is read, a third within the few milliseconds of
      // the write, a third during the update that follows.
      const aim = random.between(0, 2);
      if (aim > 0) await sleep(aim === 1 ? random.between(0, 6) : random.between(6, options.maxKillDelayMs ?? 250));
      await server.kill('SIGKILL');
      await change;
      server = await startServerProcess(home);
      const stored = (await call(server, 'GET', `/api/iop/definition?production=${production}`)).json;
      if (isDeepStrictEqual(stored, definition(version))) old++;
      else if (isDeepStrictEqual(stored, definition(next))) {
        renewed++;
        version = next;
      } else {
        mixed++;
        throw new Error(`after kill ${kill + 1} the stored definition is neither version ${version} nor ${next}: ${JSON.stringify(stored)}`);
      }
      await call(server, 'POST', '/api/iop/start', { production });
      const items = (await call(server, 'GET', `/api/iop/items?production=${production}`)).json as { items: Array<{ name: string; state: string }> };
      notRunning += items.items.filter((item) => item.state !== 'running').length;
    }
    await server.kill('SIGTERM');
    server = null;
    return {
      faults: options.kills,
      checked: options.kills,
      lost: mixed,
      duplicated: 0,
      notes: `after restart: old definition ${old}, new definition ${renewed}, mixed ${mixed}; items not running after the restart ${notRunning}`,
    };
  } finally {
    await server?.kill('SIGKILL');
  }
}

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const reply = await server.local(method, path, body);
  if (reply.status !== 200) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text}`);
  return reply;
}

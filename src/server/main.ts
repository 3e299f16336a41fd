/**
 * `conveyor serve`: runs the platform instance of a home until SIGINT/SIGTERM (SIGHUP re-reads the
 * TLS certificate and key). Exit codes: 0 after a clean shutdown, 1 when the server cannot start.
 * `conveyor doctor`: checks a home's configuration (exit 1 when a check finds a problem).
 * `conveyor serve --watch` also restarts the items whose Python files change (python-watch.ts).
 * `conveyor users reset-password NAME`: a new password for a user of a home (server running or not).
 * `conveyor stop`: ends the server of a home (SIGTERM to the pid it records) and waits for it.
 * `conveyor purge`: asks the running server of a home to purge old finished messages and log entries.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { errorText, isConveyorError } from '../core/errors.ts';
import { killChildProcesses } from './child-processes.ts';
import { loadConfig, type ConfigOverrides } from './config.ts';
import { diagnose, doctorReport } from './doctor.ts';
import { chosenPassword, resetPassword, usersHome } from './reset-password.ts';
import { purgeLines, purgeThroughServer, type PurgeFlags } from './purge-command.ts';
import { watchPythonFiles } from './python-watch.ts';
import { startServer } from './server.ts';
import { stopHomeServer } from './stop-command.ts';

/** How often `serve --watch` looks at the items' Python files. */
const watchIntervalMs = 500;

interface ServeFlags {
  home?: string;
  host?: string;
  port?: string;
  apiPrefix?: string;
  store?: string;
  python?: string;
  example?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  shutdownTimeout?: string;
  watch?: boolean;
}

function configOf(flags: ServeFlags) {
  const overrides: ConfigOverrides = {
    ...(flags.home ? { home: flags.home } : {}),
    ...(flags.host ? { host: flags.host } : {}),
    ...(flags.port ? { port: Number(flags.port) } : {}),
    ...(flags.apiPrefix ? { apiPrefix: flags.apiPrefix } : {}),
    ...(flags.store ? { store: flags.store } : {}),
    ...(flags.python ? { python: flags.python } : {}),
    ...(flags.example ? { example: true } : {}),
    ...(flags.tlsCert ? { tlsCert: resolve(flags.tlsCert) } : {}),
    ...(flags.tlsKey ? { tlsKey: resolve(flags.tlsKey) } : {}),
    ...(flags.shutdownTimeout ? { shutdownTimeoutMs: Number(flags.shutdownTimeout) } : {}),
  };
  return loadConfig(overrides);
}

async function serve(flags: ServeFlags): Promise<void> {
  const config = configOf(flags);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const server = await startServer(config, say);
  say(`Conveyor serving home ${config.home}`);
  say(`API: ${server.url}${config.apiPrefix}   local socket: ${server.socketPath}`);
  say(`Portal: ${server.url}/portal/`);
  const watch = flags.watch ? watchPythonFiles(server.engine, watchIntervalMs, (text) => process.stderr.write(`${text}\n`)) : null;
  if (watch) say('Watching the Python files of the running items: an item whose files change is restarted (--watch)');
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    watch?.stop();
    say(`${signal} received: stopping productions and closing`);
    const limit = config.shutdownTimeoutMs;
    // Whatever user code is doing, the server and every process it started end within the limit.
    const hardStop = setTimeout(() => {
      process.stderr.write(`Shutdown did not finish within ${limit} ms: killing the worker processes and exiting\n`);
      killChildProcesses();
      process.exit(1);
    }, limit);
    // The productions get most of the time (a stop that runs out escalates to a kill); closing the
    // store and the listeners gets the rest.
    const reserve = Math.min(3_000, limit / 4);
    server.engine
      .close(limit - reserve)
      .catch((error: unknown) => process.stderr.write(`Error while stopping productions: ${errorText(error)}\n`))
      .then(() => server.close())
      .then(
        () => {
          clearTimeout(hardStop);
          killChildProcesses();
          process.exit(0);
        },
        (error: unknown) => {
          process.stderr.write(`Error while closing: ${errorText(error)}\n`);
          killChildProcesses();
          process.exit(1);
        },
      );
  };
  if (config.tlsCert) {
    // A renewed certificate is picked up by new connections; open ones keep theirs.
    process.on('SIGHUP', () => {
      server.reloadTls().then(
        () => say(`SIGHUP received: reloaded the TLS certificate ${config.tlsCert} and key ${config.tlsKey}`),
        (error) => process.stderr.write(`SIGHUP received: kept the TLS certificate in use: ${errorText(error)}\n`),
      );
    });
  }
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

const program = new Command('conveyor').description('Conveyor: run and manage Python integration productions');
program
  .command('serve')
  .description('run the server of a home (HTTP API, portal, engine)')
  .option('--home <dir>', 'the home directory (default CONVEYOR_HOME or ~/.conveyor)')
  .option('--host <host>', 'address to listen on (default 127.0.0.1)')
  .option('--port <port>', 'TCP port (default 52773; 0 picks a free port)')
  .option('--api-prefix <prefix>', 'mount prefix of the API (default /api/iop)')
  .option('--store <url>', 'postgres://… to use PostgreSQL instead of the embedded SQLite store')
  .option('--python <path>', 'Python interpreter of the workers (default python3)')
  .option('--example', 'install the example production on a fresh home and start it')
  .option('--tls-cert <file>', 'PEM certificate: with --tls-key the TCP port speaks HTTPS only')
  .option('--tls-key <file>', 'PEM private key of --tls-cert')
  .option('--watch', 'development: restart the items whose Python files change (one event-log entry per restart)')
  .option('--shutdown-timeout <ms>', 'longest clean shutdown on SIGTERM/SIGINT; past it every process the server started is killed (default 20000)')
  .action(async (flags: ServeFlags) => {
    try {
      await serve(flags);
    } catch (error) {
      const hint = isConveyorError(error) && error.hint ? `\n${error.hint}` : '';
      process.stderr.write(`Error: ${errorText(error)}${hint}\n`);
      if (process.env['CONVEYOR_DEBUG'] === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
      process.exit(1);
    }
  });

program
  .command('doctor')
  .description('check a home and this machine (Node, Python, home, lock, disk, TLS, store, port, portal build) without starting a server')
  .option('--home <dir>', 'the home directory (default CONVEYOR_HOME or ~/.conveyor)')
  .option('--host <host>', 'address the server would listen on')
  .option('--port <port>', 'TCP port the server would listen on')
  .option('--store <url>', 'postgres://… store to check instead of the embedded SQLite one')
  .option('--python <path>', 'Python interpreter of the workers')
  .option('--tls-cert <file>', 'PEM certificate')
  .option('--tls-key <file>', 'PEM private key')
  .action(async (flags: ServeFlags) => {
    try {
      const report = doctorReport(await diagnose(configOf(flags)));
      process.exitCode = report.exitCode;
      // A reader that goes away (`conveyor doctor | head -1`) ends the command quietly.
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
      });
      process.stdout.write(`${report.lines.join('\n')}\n`);
    } catch (error) {
      process.stderr.write(`Error: ${errorText(error)}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('stop')
  .description('stop the server of a home (also one a local-mode cli started in the background)')
  .option('--home <dir>', 'the home directory (default CONVEYOR_HOME or ~/.conveyor)')
  .action(async (flags: ServeFlags) => {
    try {
      const config = configOf(flags);
      const outcome = await stopHomeServer(config.home, config.shutdownTimeoutMs);
      process.stdout.write(`${outcome.line}\n`);
      process.exitCode = outcome.exitCode;
    } catch (error) {
      process.stderr.write(`Error: ${errorText(error)}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('purge')
  .description('purge finished messages and event-log entries older than a bound, through the running server of a home (dry run first with --dry-run)')
  .option('--home <dir>', 'the home directory (default CONVEYOR_HOME or ~/.conveyor)')
  .option('--namespace <name>', 'the namespace', 'USER')
  .option('--keep-days <days>', 'keep this many days, purge what is older')
  .option('--older-than <instant>', 'purge what was created before this ISO 8601 instant (UTC when no zone is given)')
  .option('--dry-run', 'count and measure only; delete nothing')
  .option('--no-log', 'leave the event log alone')
  .action(async (flags: PurgeFlags & { home?: string }) => {
    try {
      const config = configOf(flags);
      const reply = await purgeThroughServer(config.home, config.apiPrefix, flags);
      process.stdout.write(`${purgeLines(reply).join('\n')}\n`);
    } catch (error) {
      const hint = isConveyorError(error) && error.hint ? `\n${error.hint}` : '';
      process.stderr.write(`Error: ${errorText(error)}${hint}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('users')
  .description("manage the users of a home's users.json, whether its server runs or not")
  .command('reset-password <name>')
  .description('give a user a new password (generated and printed once, or read from stdin)')
  .option('--home <dir>', 'the home directory (default CONVEYOR_HOME, else the current folder when it holds users.json, else ~/.conveyor)')
  .option('--password-stdin', 'read the new password from stdin instead of generating one')
  .option('--password <password>', 'the new password (other users of the machine may see it in the process list: prefer --password-stdin)')
  .action(async (name: string, flags: { home?: string; passwordStdin?: boolean; password?: string }) => {
    try {
      const given = await chosenPassword(flags, process.stdin);
      const reset = await resetPassword(usersHome(flags.home), name, given);
      process.stdout.write(
        reset.generated === null
          ? `Changed the password of ${name} in ${reset.file}\n`
          : `New password of ${name}: ${reset.generated}\nIt is shown only this once (${reset.file} keeps its hash only).\n`,
      );
    } catch (error) {
      const hint = isConveyorError(error) && error.hint ? `\n${error.hint}` : '';
      process.stderr.write(`Error: ${errorText(error)}${hint}\n`);
      process.exitCode = 1;
    }
  });

await program.parseAsync(process.argv);

/**
 * `cli -h` (and `cli` with no action): usage, the options, how remote mode is switched on, then the
 * default production (the namespace's, else the built-in name), the namespace and the mode:
 * `Mode: REMOTE (<url>)` or `Mode: LOCAL (<home>)`.
 */
import { usageLine } from './command-line.ts';
import { builtinDefaultProduction, describeMode, type CommandContext } from './context.ts';

const optionsText = `
Manage Conveyor productions, locally (the home's server) or remotely (a server's HTTP API).

actions (one per command):
  -h, --help                 show this help, the default production and the mode
  -d, --default [NAME]       print the default production; with NAME, set it
  -l, --list                 list the productions (JSON)
  -s, --start [NAME]         start a production (default: the default production) and show its
                             log until Ctrl+C, which stops the production
  -S, --stop                 stop the running production
  -k, --kill                 force-stop the running production
  -r, --restart              restart the running production
  -u, --update               hot-reload the changed items of the running production
  -x, --status               print the status of the production (JSON)
  -m, -M, --migrate PATH     migrate productions and classes with a settings.py
  -e, --export [NAME]        print a production definition (JSON; default: the default production)
  -v, --version              print the version
  -L, --log [N]              show the log and follow it until Ctrl+C; with N, print the last N entries
  -i, --init [DIR]           load and compile class files (default: the class files Conveyor bundles)
  -t, --test [NAME]          send a test message to the component NAME and print the reply
  --import-schema FILE PACKAGE NAME
                             register a JSON schema file for DTL under PACKAGE and NAME

IoP 4 actions (beyond the spec):
  -e [NAME] --format FORMAT  the production as json (default), python, class, graph or mermaid
  -q, --queue [PROD]         print the queues of a production (JSON; default: the default production)
  --bindings [--unused]      list the registered Python classes and the items using them (JSON)
  --unbind CLASS             unregister a Python class no item uses
  --plan FILE [--production P] [--out PATH]
                             plan the change from the stored production to the one FILE's
                             PRODUCTIONS declares; print it, or write it as JSON to PATH
  --review-plan PLAN         print a plan written by --plan --out
  --apply-plan PLAN --settings FILE [--production P] [--allow-destructive]
                             apply a reviewed plan (refused when the stored production or FILE
                             changed since; destructive operations are skipped without
                             --allow-destructive); the server keeps the definition it replaces
  --verify-plan PLAN [--production P]
                             whether the stored production is the one PLAN leads to
  --rollback-backup [PROD]   restore the definition the last apply replaced
  -m PATH --strict-production-validation
                             migrate, refusing it when a production has validation issues

modifiers:
  -D, --detach               with -s: return as soon as the production is started
  -C, --classname CLASSNAME  with -t: the message class (module.Class)
  -B, --body BODY            with -t: the message body, inline JSON or @path/to/file.json (a text
                             that is not JSON is sent as that text)
  -n, --namespace NAMESPACE  use this namespace for this command
  -R, --remote-settings FILE a settings.py whose REMOTE_SETTINGS switches remote mode on
  --force-local              stay local, whatever switches remote mode on

remote mode is on with the first of: CLI_URL (e.g. http://localhost:8080); -R FILE; CLI_SETTINGS=FILE;
a -m settings file that has REMOTE_SETTINGS = {"url": ...}. Credentials: CLI_USERNAME and CLI_PASSWORD,
or the username and password keys. CLI_NAMESPACE (default USER); CLI_VERIFY_SSL=false skips TLS checks.
Local mode talks to the server of CONVEYOR_HOME (default ~/.conveyor) and starts it when none runs.`;

// Help must not hang on a server that does not answer.
const helpTimeoutMs = 5_000;

export function helpText(): string {
  return `${usageLine}\n${optionsText}`;
}

export async function helpAction({ client, mode, io }: CommandContext): Promise<void> {
  io.out(helpText());
  let production = builtinDefaultProduction;
  try {
    production = (await client.getDefault(helpTimeoutMs)) || builtinDefaultProduction;
  } catch (error) {
    // Help never starts a server and never fails: an unreachable remote is worth a warning.
    if (mode.kind === 'remote') io.err(`Warning: could not retrieve the default production: ${(error as Error).message}`);
  }
  io.out('');
  io.out(`Default production: ${production}`);
  io.out(`Namespace: ${client.namespace}`);
  io.out(`Mode: ${describeMode(mode)}`);
}

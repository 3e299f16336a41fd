/**
 * Local or remote: the spec's activation order, evaluated once per command.
 *   --force-local  >  CLI_URL  >  -R file  >  CLI_SETTINGS  >  a -m settings file with REMOTE_SETTINGS  >  local
 * `IOP_*` variables stand in for missing `CLI_*` ones. `-n` overrides the namespace in both modes.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import { isFalseText, readRemoteSettings, type RemoteSettings } from './remote-settings.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export type RemoteSource = 'CLI_URL' | '-R' | 'CLI_SETTINGS' | '-m';

export interface RemoteMode {
  kind: 'remote';
  url: string;
  username: string;
  password: string;
  namespace: string;
  verifySsl: boolean;
  /** What switched remote mode on (for messages). */
  source: RemoteSource;
}

export interface LocalMode {
  kind: 'local';
  /** Absolute path of the home whose server the CLI talks to. */
  home: string;
  namespace: string;
}

export type Mode = RemoteMode | LocalMode;

export interface ModeInputs {
  forceLocal: boolean;
  /** `-R FILE` as given (relative to cwd). */
  remoteSettingsFile?: string;
  /** `-m FILE` as given (relative to cwd). */
  migrateFile?: string;
  /** `-n NS`. */
  namespace?: string;
  env: Env;
  cwd: string;
}

export const defaultNamespace = 'USER';

/** `CLI_<name>`, else `IOP_<name>`; empty values count as unset. */
export function cliEnv(env: Env, name: string): string | undefined {
  const value = env[`CLI_${name}`] || env[`IOP_${name}`];
  return value ? value : undefined;
}

export function resolveMode(inputs: ModeInputs): Mode {
  const { env, cwd } = inputs;
  if (inputs.forceLocal) return localMode(inputs);

  const url = cliEnv(env, 'URL');
  if (url) return remoteMode({ url }, 'CLI_URL', inputs);

  if (inputs.remoteSettingsFile) {
    const path = resolve(cwd, inputs.remoteSettingsFile);
    const read = readRemoteSettings(path);
    if (read.kind === 'none') {
      throw new ConveyorError('ERR_CONFIG', `-R ${inputs.remoteSettingsFile}: ${read.reason}`, {
        hint: 'the file needs REMOTE_SETTINGS = {"url": "http://host:port", ...}',
      });
    }
    return remoteMode(read.settings, '-R', inputs);
  }

  const settingsVariable = cliEnv(env, 'SETTINGS');
  if (settingsVariable) {
    const read = readRemoteSettings(resolve(cwd, settingsVariable));
    if (read.kind === 'none') {
      throw new ConveyorError('ERR_CONFIG', `CLI_SETTINGS=${settingsVariable}: ${read.reason}`, {
        hint: 'point CLI_SETTINGS at a settings file with REMOTE_SETTINGS = {"url": ...}, or unset it',
      });
    }
    return remoteMode(read.settings, 'CLI_SETTINGS', inputs);
  }

  if (inputs.migrateFile) {
    const read = readRemoteSettings(resolve(cwd, inputs.migrateFile));
    if (read.kind === 'remote') return remoteMode(read.settings, '-m', inputs);
  }
  return localMode(inputs);
}

function remoteMode(settings: Partial<RemoteSettings> & { url: string }, source: RemoteSource, inputs: ModeInputs): RemoteMode {
  const { env } = inputs;
  // Keys of a settings file come first; the variables fill what it leaves out.
  const verifyText = cliEnv(env, 'VERIFY_SSL');
  return {
    kind: 'remote',
    url: settings.url.replace(/\/+$/, ''),
    username: settings.username ?? cliEnv(env, 'USERNAME') ?? '',
    password: settings.password ?? cliEnv(env, 'PASSWORD') ?? '',
    namespace: inputs.namespace || settings.namespace || cliEnv(env, 'NAMESPACE') || defaultNamespace,
    verifySsl: settings.verify_ssl ?? (verifyText === undefined ? true : !isFalseText(verifyText)),
    source,
  };
}

function localMode(inputs: ModeInputs): LocalMode {
  return {
    kind: 'local',
    home: conveyorHome(inputs.env, inputs.cwd),
    namespace: inputs.namespace || cliEnv(inputs.env, 'NAMESPACE') || defaultNamespace,
  };
}

/** `CONVEYOR_HOME`, default `~/.conveyor`. */
export function conveyorHome(env: Env, cwd: string): string {
  const configured = env.CONVEYOR_HOME;
  if (configured) return resolve(cwd, configured);
  return resolve(env.HOME || homedir(), '.conveyor');
}

/**
 * REMOTE_SETTINGS of a project settings file (spec "Project settings file"), read without running the
 * file: the module-level assignment is parsed as a Python literal.
 */
import { readFileSync } from 'node:fs';
import { ConveyorError } from '../core/errors.ts';
import { findAssignment, PythonSyntaxError, type PythonValue } from './python-literal.ts';

export interface RemoteSettings {
  url: string;
  username?: string;
  password?: string;
  namespace?: string;
  verify_ssl?: boolean;
  /** migrate only: the package directory name on the server. */
  package?: string;
  /** migrate only: absolute server folder the package goes into. */
  remote_folder?: string;
}

export type SettingsFileRead =
  | { kind: 'remote'; settings: RemoteSettings }
  /** The file has no REMOTE_SETTINGS, or one without `url`: it does not switch remote mode on. */
  | { kind: 'none'; reason: string; settings: Partial<RemoteSettings> };

const stringKeys = ['url', 'username', 'password', 'namespace', 'package', 'remote_folder'] as const;

/** Throws ERR_CONFIG when the file cannot be read or REMOTE_SETTINGS is not a plain dict literal. */
export function readRemoteSettings(path: string): SettingsFileRead {
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : String(error);
    throw new ConveyorError('ERR_CONFIG', `Cannot read the settings file ${path}: ${why}`, { cause: error });
  }
  let lookup;
  try {
    lookup = findAssignment(source, 'REMOTE_SETTINGS');
  } catch (error) {
    if (error instanceof PythonSyntaxError) throw new ConveyorError('ERR_CONFIG', `The settings file ${path} is not valid Python: ${error.message}`);
    throw error;
  }
  if (!lookup.found) return { kind: 'none', reason: `${path} defines no REMOTE_SETTINGS`, settings: {} };
  if (!lookup.literal) {
    throw new ConveyorError('ERR_CONFIG', `REMOTE_SETTINGS in ${path} (line ${lookup.line}) is not a plain literal: ${lookup.reason}`, {
      hint: 'write it as a dict of strings and booleans (the file is read, not run), or use CLI_URL and the CLI_* variables',
    });
  }
  return toSettings(lookup.value, path, lookup.line);
}

function toSettings(value: PythonValue, path: string, line: number): SettingsFileRead {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConveyorError('ERR_CONFIG', `REMOTE_SETTINGS in ${path} (line ${line}) must be a dict, like {"url": "http://host:8080"}`);
  }
  const settings: Partial<RemoteSettings> = {};
  for (const key of stringKeys) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'string' && typeof field !== 'number') {
      throw new ConveyorError('ERR_CONFIG', `REMOTE_SETTINGS["${key}"] in ${path} (line ${line}) must be a string`);
    }
    settings[key] = String(field);
  }
  const verify = value.verify_ssl;
  if (verify !== undefined && verify !== null) {
    if (typeof verify === 'boolean') settings.verify_ssl = verify;
    else if (typeof verify === 'number') settings.verify_ssl = verify !== 0;
    else if (typeof verify === 'string') settings.verify_ssl = !isFalseText(verify);
    else throw new ConveyorError('ERR_CONFIG', `REMOTE_SETTINGS["verify_ssl"] in ${path} (line ${line}) must be True or False`);
  }
  if (!settings.url) return { kind: 'none', reason: `REMOTE_SETTINGS in ${path} (line ${line}) has no "url"`, settings };
  return { kind: 'remote', settings: settings as RemoteSettings };
}

/** `false`, `0`, `no`, `off` (any case) turn a flag off. */
export function isFalseText(text: string): boolean {
  return ['false', '0', 'no', 'off'].includes(text.trim().toLowerCase());
}

/**
 * Server configuration: defaults, then `<home>/conveyor.yaml`, then environment variables, then
 * command-line flags (each later source wins). Documented in docs/configuration.md.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { ConveyorError } from '../core/errors.ts';
import { exportFormats, type ExportFormat } from '../core/export-format.ts';
import { parseSqlHosts, type SqlHostsConfig } from '../engine/sql-hosts/sql-host-config.ts';

export interface ServerConfig {
  home: string;
  host: string;
  port: number;
  apiPrefix: string;
  docsPrefix: string;
  /** A PostgreSQL URL, or empty for the embedded SQLite store in the home. */
  store: string;
  durability: 'full' | 'normal';
  /** Python interpreter of the workers. */
  python: string;
  /** Production name → its interpreter or virtual environment folder (conveyor.yaml only; src/engine/item-python.ts). */
  pythonByProduction: Record<string, string>;
  /** Namespaces created at start (USER always exists). */
  namespaces: string[];
  bodyLimit: number;
  maxTop: number;
  requestTimeoutMs: number;
  /** Folders a `remote_folder` of PUT /migrate may point into. Default: the home. */
  allowedRoots: string[];
  /** The one folder POST /schemas/import may read a server `path` from (else upload the file). Default: `<home>/imports`. */
  importFolder: string;
  drainTimeoutMs: number;
  /** Cluster (PostgreSQL store): lease of a claimed request; a dead node's requests wait this long. */
  leaseMs: number;
  /** Install and start the example production on a fresh home. */
  example: boolean;
  /** SIGTERM/SIGINT: the longest clean shutdown; past it every process the server started is killed. */
  shutdownTimeoutMs: number;
  /** How often the namespaces' retention policies run in the background (docs/operations.md, Retention). */
  retentionIntervalMs: number;
  /** PEM certificate (chain) and private key: with both, the TCP port speaks HTTPS only. Empty: plain HTTP. */
  tlsCert: string;
  tlsKey: string;
  /** Failed logins a user name, or a client address, may have before it must wait (HTTP 429). */
  loginFailuresPerUser: number;
  loginFailuresPerAddress: number;
  /** The first wait; it doubles with each further failure, up to loginLockoutMaxMs. */
  loginLockoutMs: number;
  loginLockoutMaxMs: number;
  /** The form of `GET /export`: `spec` (the spec's structured shape) or `iop` (IoP's xmltodict form). */
  exportFormat: ExportFormat;
  /** Per namespace, the named read-only SQL connections of `<sql>` in transforms (conveyor.yaml only; none by default). */
  sqlHosts: SqlHostsConfig;
}

export type ConfigOverrides = Partial<ServerConfig>;

export function defaultHome(): string {
  return process.env['CONVEYOR_HOME'] || join(homedir(), '.conveyor');
}

const keys: Record<keyof ServerConfig, 'string' | 'number' | 'boolean' | 'list' | 'map' | 'sqlHosts'> = {
  home: 'string',
  host: 'string',
  port: 'number',
  apiPrefix: 'string',
  docsPrefix: 'string',
  store: 'string',
  durability: 'string',
  python: 'string',
  pythonByProduction: 'map',
  namespaces: 'list',
  bodyLimit: 'number',
  maxTop: 'number',
  requestTimeoutMs: 'number',
  allowedRoots: 'list',
  importFolder: 'string',
  drainTimeoutMs: 'number',
  leaseMs: 'number',
  example: 'boolean',
  shutdownTimeoutMs: 'number',
  retentionIntervalMs: 'number',
  tlsCert: 'string',
  tlsKey: 'string',
  loginFailuresPerUser: 'number',
  loginFailuresPerAddress: 'number',
  loginLockoutMs: 'number',
  loginLockoutMaxMs: 'number',
  exportFormat: 'string',
  sqlHosts: 'sqlHosts',
};

/** Settings naming files: in conveyor.yaml a relative path is read from the home. */
const pathKeys = new Set<keyof ServerConfig>(['tlsCert', 'tlsKey', 'importFolder']);

const environment: Partial<Record<keyof ServerConfig, string>> = {
  host: 'CONVEYOR_HOST',
  port: 'CONVEYOR_PORT',
  apiPrefix: 'CONVEYOR_API_PREFIX',
  docsPrefix: 'CONVEYOR_DOCS_PREFIX',
  store: 'CONVEYOR_STORE',
  durability: 'CONVEYOR_DURABILITY',
  python: 'CONVEYOR_PYTHON',
  namespaces: 'CONVEYOR_NAMESPACES',
  bodyLimit: 'CONVEYOR_BODY_LIMIT',
  maxTop: 'CONVEYOR_MAX_TOP',
  allowedRoots: 'CONVEYOR_ALLOWED_ROOTS',
  importFolder: 'CONVEYOR_IMPORT_FOLDER',
  leaseMs: 'CONVEYOR_LEASE_MS',
  shutdownTimeoutMs: 'CONVEYOR_SHUTDOWN_TIMEOUT_MS',
  retentionIntervalMs: 'CONVEYOR_RETENTION_INTERVAL_MS',
  tlsCert: 'CONVEYOR_TLS_CERT',
  tlsKey: 'CONVEYOR_TLS_KEY',
  exportFormat: 'CONVEYOR_EXPORT_FORMAT',
};

function coerce(key: keyof ServerConfig, value: unknown, source: string): unknown {
  const kind = keys[key];
  if (kind === 'number') {
    const number = Number(value);
    if (!Number.isFinite(number)) throw new ConveyorError('ERR_CONFIG', `${source}: ${key} must be a number, got ${JSON.stringify(value)}`);
    return number;
  }
  if (kind === 'boolean') return value === true || value === 'true' || value === '1';
  if (kind === 'map') {
    const entries = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : null;
    if (!entries || entries.some(([, v]) => typeof v !== 'string' || v === '')) {
      throw new ConveyorError('ERR_CONFIG', `${source}: ${key} must map names to non-empty strings, got ${JSON.stringify(value)}`);
    }
    return Object.fromEntries(entries);
  }
  if (kind === 'list')
    return Array.isArray(value)
      ? value.map(String)
      : String(value)
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
  return String(value);
}

export function loadConfig(overrides: ConfigOverrides = {}): ServerConfig {
  const home = resolve(overrides.home ?? defaultHome());
  const config: ServerConfig = {
    home,
    host: '127.0.0.1',
    port: 52773,
    apiPrefix: '/api/iop',
    docsPrefix: '/api/atelier/v1',
    store: '',
    durability: 'full',
    python: 'python3',
    pythonByProduction: {},
    namespaces: [],
    bodyLimit: 64 * 1024 * 1024,
    maxTop: 1000,
    requestTimeoutMs: 300_000,
    allowedRoots: [home],
    importFolder: join(home, 'imports'),
    drainTimeoutMs: 10_000,
    leaseMs: 30_000,
    example: false,
    shutdownTimeoutMs: 20_000,
    retentionIntervalMs: 600_000,
    tlsCert: '',
    tlsKey: '',
    loginFailuresPerUser: 5,
    loginFailuresPerAddress: 20,
    loginLockoutMs: 30_000,
    loginLockoutMaxMs: 900_000,
    exportFormat: 'spec',
    sqlHosts: {},
  };
  const file = join(home, 'conveyor.yaml');
  let fromFile: Record<string, unknown> = {};
  try {
    fromFile = (parse(readFileSync(file, 'utf8')) as Record<string, unknown> | null) ?? {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConveyorError('ERR_CONFIG', `Cannot read ${file}: ${(error as Error).message}`);
    }
  }
  const target = config as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fromFile)) {
    if (!(key in keys)) throw new ConveyorError('ERR_CONFIG', `${file}: unknown setting ${key}`, { hint: `Known settings: ${Object.keys(keys).join(', ')}` });
    if (key === 'home') continue;
    if (key === 'sqlHosts') {
      target[key] = parseSqlHosts(value, home, file);
      continue;
    }
    const coerced = coerce(key as keyof ServerConfig, value, file);
    target[key] = pathKeys.has(key as keyof ServerConfig) && coerced !== '' ? resolve(home, String(coerced)) : coerced;
    // An interpreter path (not a bare command such as python3.12) is read from the home, like the files above.
    if (key === 'pythonByProduction') {
      target[key] = Object.fromEntries(
        Object.entries(coerced as Record<string, string>).map(([name, path]) => [name, path.includes('/') ? resolve(home, path) : path]),
      );
    }
  }
  for (const [key, variable] of Object.entries(environment)) {
    const value = process.env[variable];
    if (value !== undefined && value !== '') target[key] = coerce(key as keyof ServerConfig, value, variable);
  }
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) target[key] = value;
  // Like the file's paths, a relative import folder (from the environment too) is read from the home.
  config.importFolder = resolve(home, config.importFolder);
  if (!(config.shutdownTimeoutMs > 0)) {
    throw new ConveyorError('ERR_CONFIG', `shutdownTimeoutMs must be a number of milliseconds above 0, got ${config.shutdownTimeoutMs}`);
  }
  if (!(config.retentionIntervalMs >= 100)) {
    throw new ConveyorError('ERR_CONFIG', `retentionIntervalMs must be a number of milliseconds, 100 or more, got ${config.retentionIntervalMs}`);
  }
  if (config.durability !== 'full' && config.durability !== 'normal') {
    throw new ConveyorError('ERR_CONFIG', `durability must be full or normal, got ${config.durability}`);
  }
  if (!exportFormats.includes(config.exportFormat)) {
    throw new ConveyorError('ERR_CONFIG', `exportFormat must be ${exportFormats.join(' or ')}, got ${JSON.stringify(config.exportFormat)}`);
  }
  if ((config.tlsCert === '') !== (config.tlsKey === '')) {
    throw new ConveyorError('ERR_CONFIG', `TLS needs both a certificate and a key; only ${config.tlsCert ? 'tlsCert' : 'tlsKey'} is set`, {
      hint: 'set tlsCert and tlsKey (conveyor.yaml), CONVEYOR_TLS_CERT and CONVEYOR_TLS_KEY, or --tls-cert and --tls-key',
    });
  }
  for (const key of ['loginFailuresPerUser', 'loginFailuresPerAddress', 'loginLockoutMs', 'loginLockoutMaxMs'] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1)
      throw new ConveyorError('ERR_CONFIG', `${key} must be a whole number of at least 1, got ${config[key]}`);
  }
  return config;
}

/**
 * The users of the HTTP API: name, role, and a salted scrypt hash of the password, kept in one JSON
 * file of the home (`<home>/users.json`, mode 0600). Passwords never leave this module in clear,
 * except the one generated for the first admin, which the caller prints once.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { removeStaleTemporaries, writeFileAtomic } from '../core/atomic-file.ts';
import { ConveyorError } from '../core/errors.ts';

export const roles = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof roles)[number];

/** Each role may do what the roles before it may do. */
export function roleAllows(held: Role, needed: Role): boolean {
  return roles.indexOf(held) >= roles.indexOf(needed);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}

export interface UserRecord {
  name: string;
  role: Role;
  /** base64 */
  salt: string;
  /** base64 scrypt output */
  hash: string;
  /** scrypt cost parameter N used for this hash (kept per user so the default can change). */
  cost: number;
  /** A disabled user keeps its name, role and password but is refused (401) until enabled again. */
  disabled?: boolean;
}

export interface AuthenticatedUser {
  name: string;
  role: Role;
}

/** What the users routes show of a user: never its password hash. */
export interface ListedUser extends AuthenticatedUser {
  disabled: boolean;
}

const keyLength = 32;
const defaultCost = 16384;
/** scrypt needs 128 * N * r bytes; leave headroom over Node's 32 MiB default. */
const maxmem = 64 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, cost: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keyLength, { N: cost, r: 8, p: 1, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(name: string, password: string, role: Role, cost = defaultCost): Promise<UserRecord> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, cost);
  return { name, role, salt: salt.toString('base64'), hash: hash.toString('base64'), cost };
}

/** A record no password matches: verifying unknown users against it keeps their timing alike. */
const decoy: UserRecord = {
  name: '',
  role: 'viewer',
  salt: randomBytes(16).toString('base64'),
  hash: randomBytes(keyLength).toString('base64'),
  cost: defaultCost,
};

function validName(name: string): boolean {
  // `.` and `..` fit the characters but are path segments: GET /users/.. must not name a user.
  return /^[A-Za-z0-9._@-]{1,64}$/.test(name) && name !== '.' && name !== '..';
}

/** How often the API looks at the users file even when its folder's watch reported nothing. */
const lookEveryMs = 1000;

interface FolderWatch {
  /** Set by the watch when the file may have changed, cleared by the look that follows. */
  changed: boolean;
  stop: () => void;
}

export class UserDirectory {
  readonly file: string;
  #users = new Map<string, UserRecord>();
  #loadedMtime = -1;
  /** Bumped on every change, so callers caching verifications can drop stale entries. */
  #generation = 0;
  /**
   * The changes of this directory, one after the other: each reloads, modifies and saves the file
   * only after the one before it was saved, so changes made at the same time are all kept.
   */
  #changes: Promise<void> = Promise.resolve();
  #watch: FolderWatch | undefined;
  #lastLook = 0;

  private constructor(file: string) {
    this.file = file;
  }

  /** Opens the file (a missing file is an empty directory; it is created on the first change). */
  static async open(file: string): Promise<UserDirectory> {
    const directory = new UserDirectory(file);
    await removeStaleTemporaries(file);
    await directory.reload();
    return directory;
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * The API's check before each request: re-reads the file only when it may have changed, so a
   * password reset from the command line (`conveyor users reset-password`) counts at the next
   * request without a look at the file on every request (a stat cost about 7 µs of a 50 µs
   * `GET /status`). Every change of the file renames a new one over it, which the watch on its
   * folder reports; the file is still looked at once a second, for file systems that report nothing.
   */
  async reloadIfChanged(): Promise<void> {
    this.#watch ??= this.#watchFolder();
    const now = Date.now();
    if (!this.#watch.changed && now - this.#lastLook < lookEveryMs) return;
    this.#watch.changed = false;
    this.#lastLook = now;
    await this.reload();
  }

  /** Ends the folder watch (the server's shutdown); a later `reloadIfChanged` starts a new one. */
  close(): void {
    this.#watch?.stop();
    this.#watch = undefined;
  }

  #watchFolder(): FolderWatch {
    const state: FolderWatch = { changed: true, stop: () => undefined };
    try {
      const watcher = watch(dirname(this.file), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(this.file)) state.changed = true;
      });
      // A watch that fails leaves the once-a-second look, which needs no watch.
      watcher.on('error', () => watcher.close());
      state.stop = () => watcher.close();
    } catch {
      // The folder cannot be watched (missing, or no notifications here): the once-a-second look stays.
    }
    return state;
  }

  /** Re-reads the file when another process (e.g. `conveyor user add`) changed it. */
  async reload(): Promise<void> {
    // A synchronous stat: every authenticated request asks, and an inode already in the kernel's cache
    // answers in about a microsecond, while a stat on the thread pool cost tens of microseconds of CPU.
    const found = statSync(this.file, { throwIfNoEntry: false });
    if (found === undefined) {
      if (this.#users.size > 0) this.#generation++;
      this.#users.clear();
      this.#loadedMtime = -1;
      return;
    }
    const mtime = found.mtimeMs;
    if (mtime === this.#loadedMtime) return;
    const text = await readFile(this.file, 'utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ConveyorError('ERR_CONFIG', `The users file ${this.file} is not valid JSON: ${(error as Error).message}`);
    }
    const list = (parsed as { users?: unknown }).users;
    if (!Array.isArray(list)) throw new ConveyorError('ERR_CONFIG', `The users file ${this.file} must hold {"users": [...]}`);
    const users = new Map<string, UserRecord>();
    for (const entry of list as Partial<UserRecord>[]) {
      if (typeof entry.name !== 'string' || !isRole(entry.role) || typeof entry.salt !== 'string' || typeof entry.hash !== 'string') {
        throw new ConveyorError('ERR_CONFIG', `The users file ${this.file} has an invalid entry: ${JSON.stringify(entry.name ?? entry)}`, {
          hint: 'Each user needs name, role (viewer | operator | admin), salt and hash.',
        });
      }
      users.set(entry.name, {
        name: entry.name,
        role: entry.role,
        salt: entry.salt,
        hash: entry.hash,
        cost: entry.cost ?? defaultCost,
        ...(entry.disabled === true ? { disabled: true } : {}),
      });
    }
    this.#users = users;
    this.#loadedMtime = mtime;
    this.#generation++;
  }

  list(): ListedUser[] {
    return [...this.#users.values()].map(({ name, role, disabled }) => ({ name, role, disabled: disabled === true }));
  }

  /** The user as listed, or a clear error naming the known users. */
  get(name: string): ListedUser {
    const record = this.#users.get(name);
    if (!record) throw unknownUser(name, this.#users);
    return { name: record.name, role: record.role, disabled: record.disabled === true };
  }

  /** Checked on every authenticated request: a map lookup, no file access. */
  isDisabled(name: string): boolean {
    return this.#users.get(name)?.disabled === true;
  }

  get size(): number {
    return this.#users.size;
  }

  /** The user when name and password match, else null. Runs scrypt either way. */
  async verify(name: string, password: string): Promise<AuthenticatedUser | null> {
    const record = this.#users.get(name);
    const target = record ?? decoy;
    const expected = Buffer.from(target.hash, 'base64');
    const actual = await scrypt(password, Buffer.from(target.salt, 'base64'), target.cost);
    const same = actual.length === expected.length && timingSafeEqual(actual, expected);
    return same && record !== undefined ? { name: record.name, role: record.role } : null;
  }

  /** Creates the user or replaces its password and role (a disabled user stays disabled). */
  async set(name: string, password: string, role: Role): Promise<void> {
    if (!validName(name)) {
      throw new ConveyorError('ERR_INVALID_INPUT', `Invalid user name ${JSON.stringify(name)}`, { hint: 'Use 1 to 64 letters, digits, . _ @ or -.' });
    }
    if (!isRole(role)) throw new ConveyorError('ERR_INVALID_INPUT', `Invalid role ${JSON.stringify(role)}: use viewer, operator or admin`);
    if (password.length === 0) throw new ConveyorError('ERR_INVALID_INPUT', `The password of ${name} must not be empty`);
    // Hashed before the change's turn: scrypt is the slow part and needs nothing from the file.
    const record = await hashPassword(name, password, role);
    await this.#change((users) => {
      if (role !== 'admin') keepAnAdmin(users, name, `make ${name} ${role === 'viewer' ? 'a' : 'an'} ${role}`);
      const disabled = users.get(name)?.disabled === true;
      users.set(name, disabled ? { ...record, disabled } : record);
    });
  }

  /** Changes the role of an existing user, keeping its password. */
  async setRole(name: string, role: Role): Promise<void> {
    if (!isRole(role)) throw new ConveyorError('ERR_INVALID_INPUT', `Invalid role ${JSON.stringify(role)}: use viewer, operator or admin`);
    await this.#change((users) => {
      const current = users.get(name);
      if (!current) throw unknownUser(name, users);
      if (role !== 'admin') keepAnAdmin(users, name, `make ${name} ${role === 'viewer' ? 'a' : 'an'} ${role}`);
      users.set(name, { ...current, role });
    });
  }

  /**
   * Disables a user (its requests are refused with 401 from the next one on, its password kept) or
   * enables it again. The last enabled admin cannot be disabled: nobody could manage users any more.
   */
  async setDisabled(name: string, disabled: boolean): Promise<void> {
    await this.#change((users) => {
      const current = users.get(name);
      if (!current) throw unknownUser(name, users);
      if (disabled) keepAnAdmin(users, name, `disable ${name}`);
      const next: UserRecord = { ...current, disabled: true };
      if (!disabled) delete next.disabled;
      users.set(name, next);
    });
  }

  /** Replaces the password of an existing user, keeping its role (`conveyor users reset-password`). */
  async setPassword(name: string, password: string): Promise<void> {
    if (password.length === 0) throw new ConveyorError('ERR_INVALID_INPUT', `The password of ${name} must not be empty`);
    // The role is the one the file holds when the change takes its turn, not one read earlier.
    const salted = await hashPassword(name, password, 'viewer');
    await this.#change((users) => {
      const current = users.get(name);
      if (!current) throw unknownUser(name, users, this.file);
      users.set(name, { ...salted, role: current.role, ...(current.disabled === true ? { disabled: true } : {}) });
    });
  }

  async remove(name: string): Promise<void> {
    await this.#change((users) => {
      if (!users.has(name)) throw unknownUser(name, users);
      keepAnAdmin(users, name, `remove ${name}`);
      users.delete(name);
    });
  }

  /**
   * Runs one change in its turn: reloads the file, applies `modify` to a copy of the users and saves
   * the copy. A change that fails (refused or not saved) leaves the users as they were and does not
   * stop the changes queued after it.
   */
  #change(modify: (users: Map<string, UserRecord>) => void): Promise<void> {
    const run = this.#changes.then(async () => {
      await this.reload();
      const users = new Map(this.#users);
      modify(users);
      await this.#save(users);
    });
    this.#changes = run.catch(() => undefined);
    return run;
  }

  /** All or nothing across kill -9: the file holds either the old users or the new ones. */
  async #save(users: Map<string, UserRecord>): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify({ users: [...users.values()] }, null, 2)}\n`);
    this.#users = users;
    this.#loadedMtime = (await stat(this.file)).mtimeMs;
    this.#generation++;
  }
}

function unknownUser(name: string, users: Map<string, UserRecord>, file?: string): ConveyorError {
  const known = [...users.keys()].join(', ') || 'none';
  return new ConveyorError('ERR_INVALID_INPUT', `No user named ${JSON.stringify(name)}${file ? ` in ${file}` : ''} (users: ${known})`);
}

/**
 * Nobody could manage users any more (except over the local socket): refuse to lose the last enabled
 * admin, by removal, demotion or disabling.
 */
function keepAnAdmin(users: Map<string, UserRecord>, name: string, action: string): void {
  const user = users.get(name);
  if (user?.role !== 'admin' || user.disabled === true) return;
  const admins = [...users.values()].filter((other) => other.role === 'admin' && other.disabled !== true).length;
  if (admins <= 1) {
    throw new ConveyorError('ERR_INVALID_INPUT', `Cannot ${action}: it is the last enabled admin`, { hint: 'Give another user the admin role first' });
  }
}

export interface FirstAdmin {
  name: string;
  /** Set only when Conveyor generated it: print it once, it is stored hashed only. */
  generatedPassword: string | null;
}

/**
 * Secure by default: when the directory is empty, creates an admin named by `CONVEYOR_ADMIN_USER`
 * (default `admin`) with the password `CONVEYOR_ADMIN_PASSWORD`, or a random one returned to the caller
 * to print once. Returns null when users already exist (the variables are then ignored).
 */
export async function ensureFirstAdmin(directory: UserDirectory, env: NodeJS.ProcessEnv = process.env): Promise<FirstAdmin | null> {
  await directory.reload();
  if (directory.size > 0) return null;
  const name = env.CONVEYOR_ADMIN_USER || 'admin';
  const given = env.CONVEYOR_ADMIN_PASSWORD;
  const password = given || randomBytes(18).toString('base64url');
  await directory.set(name, password, 'admin');
  return { name, generatedPassword: given ? null : password };
}

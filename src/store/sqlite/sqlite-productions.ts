/** Production definitions and their durable state, plus each namespace's default production. */
import type Database from 'better-sqlite3';
import { ConveyorError } from '../../core/errors.ts';
import type { ProductionDefinition, ProductionRecord } from '../../core/production.ts';
import type { ProductionRepository, ProductionStatePatch } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

interface ProductionRow {
  name: string;
  definition: string;
  auto_start: number;
  last_start_time: number | null;
  last_stop_time: number | null;
  state: 'running' | 'stopped';
  updated_at: number;
}

const columns = 'name, definition, auto_start, last_start_time, last_stop_time, state, updated_at';

export class SqliteProductions implements ProductionRepository {
  readonly #ctx: SqliteContext;
  readonly #list: Database.Statement<[number], ProductionRow>;
  readonly #get: Database.Statement<[number, string], ProductionRow>;
  readonly #put: Database.Statement<[number, string, string, number]>;
  readonly #delete: Database.Statement<[number, string]>;
  readonly #forgetDefault: Database.Statement<[number, string]>;
  readonly #setState: Database.Statement<Record<string, unknown>>;
  readonly #setAutoStart: Database.Statement<[number, number, number, string]>;
  readonly #getDefault: Database.Statement<[number], { name: string | null }>;
  readonly #setDefault: Database.Statement<[string, number]>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#list = db.prepare(`SELECT ${columns} FROM productions WHERE ns_id = ? ORDER BY name`);
    this.#get = db.prepare(`SELECT ${columns} FROM productions WHERE ns_id = ? AND name = ?`);
    this.#put = db.prepare(`
      INSERT INTO productions (ns_id, name, definition, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (ns_id, name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`);
    this.#delete = db.prepare('DELETE FROM productions WHERE ns_id = ? AND name = ?');
    this.#forgetDefault = db.prepare('UPDATE namespaces SET default_production = NULL WHERE id = ? AND default_production = ?');
    this.#setState = db.prepare(`
      UPDATE productions SET
        state = CASE WHEN @setState THEN @state ELSE state END,
        last_start_time = CASE WHEN @setLastStart THEN @lastStart ELSE last_start_time END,
        last_stop_time = CASE WHEN @setLastStop THEN @lastStop ELSE last_stop_time END,
        updated_at = @now
      WHERE ns_id = @nsId AND name = @name`);
    this.#setAutoStart = db.prepare('UPDATE productions SET auto_start = ?, updated_at = ? WHERE ns_id = ? AND name = ?');
    this.#getDefault = db.prepare('SELECT default_production AS name FROM namespaces WHERE id = ?');
    this.#setDefault = db.prepare('UPDATE namespaces SET default_production = ? WHERE id = ?');
  }

  list(namespace: string): Promise<ProductionRecord[]> {
    return this.#ctx.run('list productions', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#list.all(nsId).map((row) => toRecord(namespace, row));
    });
  }

  get(namespace: string, name: string): Promise<ProductionRecord | null> {
    return this.#ctx.run('read a production', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const row = nsId === undefined ? undefined : this.#get.get(nsId, name);
      return row === undefined ? null : toRecord(namespace, row);
    });
  }

  put(namespace: string, definition: ProductionDefinition): Promise<void> {
    return this.#ctx.run('save a production', () => this.putRow(this.#ctx.requireNamespace(namespace), definition));
  }

  /** The write itself, for callers that hold a transaction (a migration's registrations). */
  putRow(nsId: number, definition: ProductionDefinition): void {
    this.#put.run(nsId, definition.name, JSON.stringify(definition), Date.now());
  }

  /** Also forgets the namespace's default when it named this production. */
  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.write('delete a production', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      this.#delete.run(nsId, name);
      this.#forgetDefault.run(nsId, name);
    });
  }

  setState(namespace: string, name: string, patch: ProductionStatePatch): Promise<void> {
    return this.#ctx.run('save a production state', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      const { changes } = this.#setState.run({
        nsId,
        name,
        now: Date.now(),
        setState: patch.state === undefined ? 0 : 1,
        state: patch.state ?? null,
        setLastStart: patch.lastStartTime === undefined ? 0 : 1,
        lastStart: patch.lastStartTime ?? null,
        setLastStop: patch.lastStopTime === undefined ? 0 : 1,
        lastStop: patch.lastStopTime ?? null,
      });
      if (changes === 0) throw notFound(namespace, name);
    });
  }

  setAutoStart(namespace: string, name: string, autoStart: boolean): Promise<void> {
    return this.#ctx.run('save a production auto-start', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      if (this.#setAutoStart.run(autoStart ? 1 : 0, Date.now(), nsId, name).changes === 0) throw notFound(namespace, name);
    });
  }

  getDefault(namespace: string): Promise<string | null> {
    return this.#ctx.run('read the default production', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? null : (this.#getDefault.get(nsId)?.name ?? null);
    });
  }

  /** Any name is accepted: the default may name a production that is created later. */
  setDefault(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('save the default production', () => {
      this.#setDefault.run(name, this.#ctx.requireNamespace(namespace));
    });
  }
}

function notFound(namespace: string, name: string): ConveyorError {
  return new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production "${name}" does not exist in namespace "${namespace}"`);
}

function toRecord(namespace: string, row: ProductionRow): ProductionRecord {
  return {
    namespace,
    name: row.name,
    definition: JSON.parse(row.definition) as ProductionDefinition,
    autoStart: row.auto_start === 1,
    lastStartTime: row.last_start_time,
    lastStopTime: row.last_stop_time,
    state: row.state,
    updatedAt: row.updated_at,
  };
}

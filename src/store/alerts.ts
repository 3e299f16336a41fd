/**
 * The alerts of a namespace as the store keeps them (`AlertRepository` in store.ts): one row per
 * open alert of a source, category and key; repeats add to its count until it is acknowledged, after
 * which the next occurrence opens a new row.
 */

/** What raised an alert (docs/operations.md, Alerts). */
export const alertCategories = ['failure', 'item-error', 'restarts', 'queue', 'inactivity'] as const;
export type AlertCategory = (typeof alertCategories)[number];

export interface AlertOccurrence {
  /** The config name of the item the alert is about (IRIS's SourceConfigName). */
  source: string;
  category: AlertCategory;
  /** What makes two occurrences the same alert (e.g. the error text without the message id). */
  key: string;
  /** The latest alert text (IRIS's AlertText). */
  text: string;
  /** Epoch ms. */
  time: number;
}

export interface StoredAlert {
  id: number;
  namespace: string;
  source: string;
  category: AlertCategory;
  key: string;
  text: string;
  firstTime: number;
  lastTime: number;
  /** Occurrences counted into this alert (1 for a new one). */
  count: number;
  acknowledged: boolean;
  acknowledgedBy: string | null;
  acknowledgedAt: number | null;
}

export interface AlertQuery {
  /** Only acknowledged (true) or only open (false) alerts; both when absent. */
  acknowledged?: boolean;
  limit: number;
}

export interface AlertRepository {
  /**
   * Counts an occurrence into the open alert of the same source, category and key (count + 1, last
   * time and text updated), or opens a new alert. Atomic: concurrent records (several nodes) never open
   * two alerts for one key.
   */
  record(namespace: string, occurrence: AlertOccurrence): Promise<StoredAlert>;
  /** Newest occurrence first. */
  list(namespace: string, query: AlertQuery): Promise<StoredAlert[]>;
  /** Marks these open alerts acknowledged; returns how many changed (unknown or already acknowledged ids are skipped). */
  acknowledge(namespace: string, ids: number[], user: string, time: number): Promise<number>;
}

/** A row of the `alerts` table, the same on both drivers. */
export interface AlertRow {
  id: number | string;
  source: string;
  category: string;
  alert_key: string;
  text: string;
  first_time: number | string;
  last_time: number | string;
  count: number | string;
  acknowledged: number | boolean;
  acknowledged_by: string | null;
  acknowledged_at: number | string | null;
}

export function toStoredAlert(namespace: string, row: AlertRow): StoredAlert {
  return {
    id: Number(row.id),
    namespace,
    source: row.source,
    category: row.category as AlertCategory,
    key: row.alert_key,
    text: row.text,
    firstTime: Number(row.first_time),
    lastTime: Number(row.last_time),
    count: Number(row.count),
    acknowledged: row.acknowledged === true || row.acknowledged === 1,
    acknowledgedBy: row.acknowledged_by,
    acknowledgedAt: row.acknowledged_at === null ? null : Number(row.acknowledged_at),
  };
}

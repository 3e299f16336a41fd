/**
 * Writes the namespace's event log. Entries go through the store's group commit; callers do not
 * wait for them (the log must never slow the message path), and a failed write is reported on the
 * server's console instead of being lost silently.
 */
import type { LogType, NewLogEntry } from '../core/log.ts';
import type { Store } from '../store/store.ts';

export interface LogFields {
  configName?: string;
  job?: string;
  messageId?: number | null;
  sessionId?: number | null;
  sourceClass?: string;
  sourceMethod?: string;
}

export class EventLog {
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly onWriteError: (error: unknown) => void,
  ) {}

  write(type: LogType, text: string, fields: LogFields = {}): void {
    this.store.log.append(this.namespace, [entry(type, text, fields)]).catch(this.onWriteError);
  }

  /** For the few entries a caller must see committed (e.g. before answering a lifecycle command). */
  async writeNow(type: LogType, text: string, fields: LogFields = {}): Promise<void> {
    await this.store.log.append(this.namespace, [entry(type, text, fields)]);
  }
}

function entry(type: LogType, text: string, fields: LogFields): NewLogEntry {
  return {
    type,
    text,
    configName: fields.configName ?? '',
    job: fields.job ?? String(process.pid),
    messageId: fields.messageId ?? null,
    sessionId: fields.sessionId ?? null,
    sourceClass: fields.sourceClass ?? 'Conveyor.Engine',
    sourceMethod: fields.sourceMethod ?? '',
  };
}

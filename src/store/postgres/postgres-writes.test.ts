/** Which batch failures are retried op by op (the batch writer itself runs in every PostgreSQL suite). */
import { describe, expect, it } from 'vitest';
import { ConveyorError } from '../../core/errors.ts';
import { toStoreError } from './postgres-context.ts';
import { isWritesOwnFailure, writeWeight } from './postgres-writes.ts';

const pgError = (code: string, message = 'failed'): Error => Object.assign(new Error(message), { code });

describe('PostgreSQL batch failures', () => {
  it('retries op by op when one write may be at fault', () => {
    expect(isWritesOwnFailure(new ConveyorError('ERR_MESSAGE_NOT_FOUND', 'no message 5'))).toBe(true);
    expect(isWritesOwnFailure(new ConveyorError('ERR_NAMESPACE_UNKNOWN', 'no namespace'))).toBe(true);
    expect(isWritesOwnFailure(toStoreError('write', pgError('23514', 'violates check constraint')))).toBe(true);
  });

  it('fails the whole batch at once when the database itself failed', () => {
    expect(isWritesOwnFailure(toStoreError('write', pgError('ECONNREFUSED')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', new Error('Connection terminated unexpectedly')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', pgError('57P01', 'terminating connection due to administrator command')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', pgError('53100', 'could not extend file: No space left on device')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', pgError('XX000', 'internal error')))).toBe(false);
  });

  it('weighs an op by its rows', () => {
    expect(writeWeight({ kind: 'patch-messages', patches: [{ id: 1 }, { id: 2 }] })).toBe(2);
    expect(writeWeight({ kind: 'append-log', namespace: 'USER', entries: [] })).toBe(1);
  });
});

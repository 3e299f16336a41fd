import { describe, expect, it } from 'vitest';
import { newItem, newProduction } from '../core/production.ts';
import { previousOf, withoutPrevious, withPrevious } from './definition-history.ts';

describe('the definition an apply replaced, kept in the stored record', () => {
  const older = newProduction('P', [newItem('A', 'Python.A')]);
  const newer = newProduction('P', [newItem('B', 'Python.B')]);

  it('travels with the new definition and stays out of what readers see', () => {
    const stored = withPrevious(newer, older);
    expect(previousOf(stored)).toEqual(older);
    expect(withoutPrevious(stored)).toEqual(newer);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);
  });

  it('keeps one level: a rollback records the definition it replaces, not the whole history', () => {
    const rolledBack = withPrevious(older, withPrevious(newer, older));
    expect(previousOf(rolledBack)).toEqual(newer);
    expect(previousOf(previousOf(rolledBack) as typeof newer)).toBeNull();
    expect(withPrevious(newer, null)).toEqual(newer);
  });
});

/** The portal's setting check (web/src/components/setting-check.ts) against IoP 4 setting() declarations. */
import { describe, expect, it } from 'vitest';
import { settingProblem } from '../../web/src/components/setting-check.ts';

describe('settingProblem', () => {
  it('checks the IRIS datatype a setting() declares', () => {
    expect(settingProblem({ dataType: 'Integer' }, '42')).toBe('');
    expect(settingProblem({ dataType: 'Integer' }, '4.2')).toBe('a whole number');
    expect(settingProblem({ dataType: 'Numeric' }, '-1e3')).toBe('');
    expect(settingProblem({ dataType: 'Numeric' }, 'ten')).toBe('a number');
    expect(settingProblem({ dataType: 'Boolean' }, 'TRUE')).toBe('');
    expect(settingProblem({ dataType: 'Boolean' }, 'yes')).toBe('1, 0, true or false');
    expect(settingProblem({ dataType: 'String' }, 'anything')).toBe('');
    expect(settingProblem({ dataType: 'Ens.DataType.ConfigName' }, 'Item A')).toBe('');
  });

  it('wants a value for a required setting, and lets an optional one be empty', () => {
    expect(settingProblem({ dataType: 'Integer', required: true }, ' ')).toBe('required');
    expect(settingProblem({ dataType: 'Integer' }, '')).toBe('');
    expect(settingProblem(undefined, 'x')).toBe('');
  });
});

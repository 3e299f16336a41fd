import { describe, expect, it } from 'vitest';
import { checkName, nameProblem } from './names.ts';

describe('stored names', () => {
  it.each(['Demo.Map', 'HL7 v2', 'a-b_c', 'Été', 'x'.repeat(255)])('accepts %s', (name) => {
    expect(nameProblem('transform', name)).toBeNull();
  });

  it.each([
    ['', 'a transform needs a name'],
    ['   ', 'a transform needs a name'],
    ['..', '".." cannot name a transform'],
    ['.', '"." cannot name a transform'],
    ['bad\u0000name', 'the transform name "bad\\u0000name" contains a control character'],
    ['../../../../etc/passwd', 'the transform name "../../../../etc/passwd" contains "/" or "\\"'],
    ['/etc/passwd', 'the transform name "/etc/passwd" contains "/" or "\\"'],
    ['..\\..\\windows', 'the transform name "..\\\\..\\\\windows" contains "/" or "\\"'],
    ['x'.repeat(256), `the transform name "${'x'.repeat(20)}"… is longer than 255 characters`],
  ])('refuses %j with ERR_INVALID_INPUT', (name, problem) => {
    expect(nameProblem('transform', name)).toBe(problem);
    expect(() => checkName('transform', name)).toThrow(`Invalid transform name: ${problem}`);
  });
});

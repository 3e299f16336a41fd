import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, jsonErrorPosition } from './json-error-position.ts';

function failure(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error(`${text} is valid JSON`);
}

describe('jsonErrorPosition', () => {
  it.each([
    ['root:x:0:0:root:/root:/bin/bash', 0],
    ['{"a": tru}', 9],
    ['{"a": [1, 2, ,]}', 13],
    ['{"a": 1,}', 8],
    ['{"a": 1}x', 8],
    ['{"a": "b', 8],
    ['', 0],
    ['  x', 2],
  ])('finds where %j goes wrong (offset %i)', (text, offset) => {
    expect(jsonErrorOffset(text, failure(text))).toBe(offset);
  });

  it('gives line and column, and none of the text', () => {
    const text = '{\n  "secret": "s3cr3t-hash",\n  oops\n}';
    const position = jsonErrorPosition(text, failure(text));
    expect(position).toBe('line 3, column 3');
    expect(jsonErrorPosition('root:x:0:0', failure('root:x:0:0'))).toBe('line 1, column 1');
  });
});

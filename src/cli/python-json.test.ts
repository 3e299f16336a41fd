import { describe, expect, it } from 'vitest';
import { formatTestReply } from './output-format.ts';
import { pythonFloat, pythonJsonDumps } from './python-json.ts';

describe('pythonJsonDumps: json.dumps(json.loads(text), indent=4)', () => {
  it('keeps floats as floats: 1.0 prints as 1.0, not 1', () => {
    expect(pythonJsonDumps('{"score": 1.0, "n": 1, "big": 1E2}')).toBe('{\n    "score": 1.0,\n    "n": 1,\n    "big": 100.0\n}');
    expect(formatTestReply({ classname: 'msg.Resp', body: '{"ratio":1.0}', truncated: false })).toBe('classname: msg.Resp\nbody:\n{\n    "ratio": 1.0\n}');
  });

  it('prints numbers as Python does (values printed by python3 -c "import json; print(json.dumps(...))")', () => {
    const cases: Array<[string, string]> = [
      [
        '[1e16, 1e-5, 0.0001, 123456789012345.6, 1e22, -0.0, 2.5e-7, 1.5, 1e400, -1e400, 5e-324]',
        '1e+16|1e-05|0.0001|123456789012345.6|1e+22|-0.0|2.5e-07|1.5|Infinity|-Infinity|5e-324',
      ],
      ['[10000000000000000000000, -0, 12345678901234567890.0, 1.0e0]', '10000000000000000000000|0|1.2345678901234567e+19|1.0'],
    ];
    for (const [text, expected] of cases) {
      const printed = pythonJsonDumps(text) as string;
      const values = printed
        .split('\n')
        .slice(1, -1)
        .map((line) => line.trim().replace(/,$/, ''));
      expect(values.join('|')).toBe(expected);
    }
    expect(pythonFloat(100)).toBe('100.0');
    expect(pythonFloat(0.1)).toBe('0.1');
  });

  it('keeps key order (integer-like keys too), nesting and empty containers as json.dumps does', () => {
    expect(pythonJsonDumps('{"b": 1, "2": [], "a": {"x": [true, null, "é\\n"]}, "e": {}}')).toBe(
      '{\n    "b": 1,\n    "2": [],\n    "a": {\n        "x": [\n            true,\n            null,\n            "é\\n"\n        ]\n    },\n    "e": {}\n}',
    );
  });

  it('answers undefined for what is not JSON', () => {
    for (const text of ['<xml/>', '{"a": 1,}', '{a: 1}', '1 2', '', '"unterminated']) expect(pythonJsonDumps(text)).toBeUndefined();
  });
});

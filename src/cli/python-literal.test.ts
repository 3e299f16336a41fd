import { describe, expect, it } from 'vitest';
import { findAssignment } from './python-literal.ts';

function value(source: string): unknown {
  const lookup = findAssignment(source, 'REMOTE_SETTINGS');
  if (!lookup.found || !lookup.literal) throw new Error(`not a literal: ${JSON.stringify(lookup)}`);
  return lookup.value;
}

describe('findAssignment', () => {
  it('reads a dict of strings, booleans, numbers and None', () => {
    const source = `REMOTE_SETTINGS = {"url": 'http://h:8080', "verify_ssl": False, "port": 52773, "ratio": 1.5e2, "x": None, 'on': True}\n`;
    expect(value(source)).toEqual({ url: 'http://h:8080', verify_ssl: false, port: 52773, ratio: 150, x: null, on: true });
  });

  it('ignores what a file imports or computes elsewhere, and never runs it', () => {
    const source = [
      'import does_not_exist',
      'from bo import Operation  # fails on this machine',
      'CLASSES = {"A": Operation}',
      'REMOTE_SETTINGS = {',
      '    "url": "https://server",  # trailing comment',
      "    'username': 'u',",
      '}',
      'PRODUCTIONS = [x for x in range(3)]',
    ].join('\n');
    expect(value(source)).toEqual({ url: 'https://server', username: 'u' });
  });

  it('handles every string form: prefixes, triple quotes, escapes, implicit concatenation', () => {
    const source = [
      'REMOTE_SETTINGS = {',
      `  "a": r"C:\\new",`,
      `  "b": "tab\\tand \\u00e9 \\x41 \\101",`,
      `  "c": """multi`,
      `line""",`,
      `  "d": "one" 'two'`,
      `        "three",`,
      `  "e": b'bytes', "f": u'unicode', "g": 'it\\'s',`,
      '}',
    ].join('\n');
    expect(value(source)).toEqual({ a: 'C:\\new', b: 'tab\tand é A A', c: 'multi\nline', d: 'onetwothree', e: 'bytes', f: 'unicode', g: "it's" });
  });

  it('reads nested lists, tuples, sets, negative and hex numbers, trailing commas', () => {
    expect(value('REMOTE_SETTINGS = {"l": [1, -2, 0x10, 0o7, 0b11, 1_000,], "t": (1,), "s": {"a", "b"}, "e": {}, "n": []}')).toEqual({
      l: [1, -2, 16, 7, 3, 1000],
      t: [1],
      s: ['a', 'b'],
      e: {},
      n: [],
    });
  });

  it('takes the last module-level assignment, including annotated ones, and skips indented ones', () => {
    const source = [
      'REMOTE_SETTINGS = {"url": "first"}',
      'if False:',
      '    REMOTE_SETTINGS = {"url": "indented"}',
      'REMOTE_SETTINGS: dict = {"url": "second"}',
      'def f():',
      '    REMOTE_SETTINGS = {"url": "in a function"}',
      "text = \"REMOTE_SETTINGS = {'url': 'in a string'}\"",
      '# REMOTE_SETTINGS = {"url": "in a comment"}',
    ].join('\n');
    expect(value(source)).toEqual({ url: 'second' });
  });

  it('does not mistake a comparison or a longer name for the assignment', () => {
    expect(findAssignment('REMOTE_SETTINGS == {"url": "x"}\nREMOTE_SETTINGS_2 = {"url": "y"}\n', 'REMOTE_SETTINGS')).toEqual({ found: false });
  });

  it('reports a value that is not a literal, with its line, instead of evaluating it', () => {
    const lookup = findAssignment('import os\nREMOTE_SETTINGS = {"url": os.environ["URL"]}\n', 'REMOTE_SETTINGS');
    expect(lookup).toMatchObject({ found: true, literal: false, line: 2 });
    expect(lookup.found && !lookup.literal && lookup.reason).toContain("'os' is a name");
    expect(findAssignment('REMOTE_SETTINGS = dict(url="x")', 'REMOTE_SETTINGS')).toMatchObject({ literal: false });
    expect(findAssignment('REMOTE_SETTINGS = {"url": f"http://{host}"}', 'REMOTE_SETTINGS')).toMatchObject({ literal: false });
    expect(findAssignment('REMOTE_SETTINGS = {"url": "x"} | other', 'REMOTE_SETTINGS')).toMatchObject({ literal: false });
  });

  it('says when the file defines no such name', () => {
    expect(findAssignment('CLASSES = {}\n', 'REMOTE_SETTINGS')).toEqual({ found: false });
  });

  it('throws on an unterminated string', () => {
    expect(() => findAssignment('REMOTE_SETTINGS = {"url": "open\n}', 'REMOTE_SETTINGS')).toThrow(/line 1: unterminated string/);
  });
});

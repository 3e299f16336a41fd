/**
 * The routing rule vectors (test/rule-vectors, README there): each rule class is compiled, decides
 * for its message (at the vector's local time, or now), and the decision's fields named in
 * expected.json must match. Each vector's model must also survive serialize → parse unchanged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileRuleDefinition, readRuleDefinition, serializeRuleClass } from '../src/rules/index.ts';

const DIR = join(import.meta.dirname, 'rule-vectors');

interface VectorEntry {
  name: string;
  origin: string;
}

interface VectorMessage {
  classname: string;
  source: string;
  json: unknown;
  at?: string;
}

/** Positions differ between the original text and its serialization; everything else must not. */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/pos$/i.test(key))
      .map(([key, v]) => [key, withoutPositions(v)]),
  );
}

const index = JSON.parse(readFileSync(join(DIR, 'index.json'), 'utf8')) as VectorEntry[];

describe('routing rule vectors', () => {
  it('lists every vector directory, each saying where its expected result comes from', () => {
    const directories = readdirSync(DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(index.map((entry) => entry.name).sort()).toEqual(directories.map((entry) => entry.name).sort());
    for (const entry of index) {
      expect(entry.origin.length).toBeGreaterThan(20);
      expect(readFileSync(join(DIR, entry.name, 'notes.md'), 'utf8')).toContain('Where the expected result comes from');
    }
  });

  for (const entry of index) {
    it(entry.name, () => {
      const text = readFileSync(join(DIR, entry.name, 'rule.cls'), 'utf8');
      const message = JSON.parse(readFileSync(join(DIR, entry.name, 'message.json'), 'utf8')) as VectorMessage;
      const expected = JSON.parse(readFileSync(join(DIR, entry.name, 'expected.json'), 'utf8')) as Record<string, unknown>;
      const rule = compileRuleDefinition(text, { document: entry.name });
      const decision = rule.decide(
        { document: message.json, messageClass: message.classname, source: message.source },
        message.at ? new Date(message.at) : new Date(),
      );
      const compared = Object.fromEntries(Object.keys(expected).map((key) => [key, decision[key as keyof typeof decision]]));
      expect(compared).toEqual(expected);
      const model = readRuleDefinition(text);
      expect(withoutPositions(readRuleDefinition(serializeRuleClass(model)))).toEqual(withoutPositions(model));
    });
  }
});

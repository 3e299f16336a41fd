/**
 * The shared DTL vectors (../shared/dtl-vectors) and Conveyor's own (test/dtl-vectors), one test per vector directory: the transform is
 * parsed with the vector's parameters, run on input.json with a real host (lookup.json tables,
 * SQLite for sql-fixture.json, python3 for Python), and its status, target and user traces compared
 * with index.json, expected.json and expected-trace.json (an absent file means no user trace). Each
 * vector's model must also survive serialize → parse unchanged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileTransform,
  interpretTransform,
  parseTransform,
  serializeTransform,
  withoutPositions,
  type JsonValue,
  type TransformParameters,
} from '../src/dtl/index.ts';
import { vectorHost } from './dtl/vector-host.ts';

const SETS = [
  { title: 'DTL vectors', dir: process.env.DTL_VECTORS ?? join(import.meta.dirname, '../../shared/dtl-vectors'), atLeast: 35 },
  // Conveyor's own, in the same format (test/dtl-vectors/README.md): collation of object keys.
  { title: "Conveyor's DTL vectors", dir: join(import.meta.dirname, 'dtl-vectors'), atLeast: 3 },
];

interface VectorEntry {
  name: string;
  status: 'ok' | 'error';
  params: TransformParameters;
}

for (const set of SETS) {
  const VECTORS = set.dir;
  const index = JSON.parse(readFileSync(join(VECTORS, 'index.json'), 'utf8')) as VectorEntry[];

  function readJson(dir: string, file: string): JsonValue | undefined {
    const path = join(VECTORS, dir, file);
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as JsonValue) : undefined;
  }

  describe(set.title, () => {
    it('finds the vector set', () => {
      expect(index.length).toBeGreaterThanOrEqual(set.atLeast);
    });

    for (const vector of index) {
      it(vector.name, async () => {
        const text = readFileSync(join(VECTORS, vector.name, 'transform.xml'), 'utf8');
        const compiled = compileTransform(parseTransform(text, `${vector.name}/transform.xml`, { parameters: vector.params }));
        const host = vectorHost({
          lookup: readJson(vector.name, 'lookup.json') as Record<string, Record<string, string>> | undefined,
          sql: readJson(vector.name, 'sql-fixture.json') as Record<string, Record<string, unknown>[]> | undefined,
        });
        const result = await compiled.run(readJson(vector.name, 'input.json') ?? {}, {
          host,
          target: readJson(vector.name, 'initial-target.json'),
        });
        expect(result.target).toEqual(readJson(vector.name, 'expected.json'));
        expect(result.status, JSON.stringify(result.errors)).toBe(vector.status);
        const userTrace = result.trace.filter((t) => t.category === 'user').map((t) => t.text);
        expect(userTrace).toEqual(readJson(vector.name, 'expected-trace.json') ?? []);
        if (vector.status === 'error') expect(result.errors.length).toBeGreaterThan(0);
        // The editor saves through the serializer: the model must survive the round trip.
        const again = parseTransform(serializeTransform(compiled.ast), vector.name, { parameters: vector.params });
        expect(withoutPositions(again)).toEqual(withoutPositions(compiled.ast));
        // The AST interpreter (the bench's baseline) must agree wherever it applies.
        if (!compiled.usesPython && !compiled.usesSql && compiled.dependencies.length === 0 && !/<code/.test(text)) {
          const interpreted = interpretTransform(compiled.ast).run(readJson(vector.name, 'input.json') ?? {}, {
            host,
            target: readJson(vector.name, 'initial-target.json'),
          });
          expect(interpreted.target).toEqual(result.target);
          expect(interpreted.status).toBe(result.status);
          expect(interpreted.trace).toEqual(result.trace);
        }
      });
    }
  });
}

/**
 * No import cycles between the modules of src/ (the lint rules keep the direction between folders;
 * this keeps files inside a folder from leaning on each other in a circle).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(): string[] {
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join(src, name));
}

/** Relative imports of a file, static and dynamic, type-only ones excluded (they vanish at run time). */
function runtimeImports(file: string, text: string): string[] {
  const found: string[] = [];
  const pattern = /^\s*import\s+(?!type\s)[^;]*?from\s+'(\.[^']+)'|^\s*export\s+(?!type\s)[^;]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/gm;
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec) found.push(resolve(dirname(file), spec));
  }
  return found;
}

function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('the import graph of src/', () => {
  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', []],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toBeNull();
  });

  it('keeps src/rules (routing rules) on core and dtl only, without node: imports (the portal uses it)', () => {
    const rulesDir = join(src, 'rules');
    const files = sourceFiles().filter((file) => file.startsWith(rulesDir));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, relative(src, file)).not.toMatch(/from 'node:/);
      for (const target of runtimeImports(file, text)) {
        expect(['core', 'dtl', 'rules'], `${relative(src, file)} imports ${relative(src, target)}`).toContain(relative(src, target).split('/')[0]);
      }
    }
  });

  it('has no cycle', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(50);
    const graph = new Map(files.map((file) => [file, runtimeImports(file, readFileSync(file, 'utf8'))]));
    const cycle = findCycle(graph);
    expect(cycle?.map((file) => relative(src, file)) ?? null).toBeNull();
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledClassFolder, classFileLines, collectClassFiles } from './class-files.ts';

const root = mkdtempSync(join(tmpdir(), 'cli-classes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(relative: string, content: string): void {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

describe('collectClassFiles', () => {
  it('names documents by their path with dots, recursively, and reads their lines', () => {
    file('classes/Demo/Transform.cls', 'Class Demo.Transform\r\n{\r\n}\r\n');
    file('classes/Top.cls', 'Class Top {}');
    file('classes/readme.md', 'not a class');
    file('classes/.hidden/X.cls', 'ignored');
    const files = collectClassFiles(join(root, 'classes'));
    expect(files.map((f) => f.name)).toEqual(['Demo.Transform.cls', 'Top.cls']);
    expect(classFileLines(files[0]!)).toEqual(['Class Demo.Transform', '{', '}']);
  });

  it('fails clearly on a missing folder, a file, or a folder without class files', () => {
    expect(() => collectClassFiles(join(root, 'missing'))).toThrow(/The class folder .*missing does not exist/);
    file('plain.txt', 'x');
    expect(() => collectClassFiles(join(root, 'plain.txt'))).toThrow(/is not a folder/);
    mkdirSync(join(root, 'empty'));
    expect(() => collectClassFiles(join(root, 'empty'))).toThrow(/No \.cls files found in .*empty/);
  });

  it('finds the class files Conveyor bundles', () => {
    expect(collectClassFiles(bundledClassFolder).length).toBeGreaterThan(0);
  });
});

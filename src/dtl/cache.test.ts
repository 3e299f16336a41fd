import { describe, expect, it } from 'vitest';
import { TransformCache } from './cache.ts';

const T = (v: string): string => `<transform sourceClass='A' targetClass='B'><assign value='"${v}"' property='target.{v}'/></transform>`;

describe('TransformCache', () => {
  it('compiles each name + version once and reuses it', async () => {
    const cache = new TransformCache();
    const one = cache.getOrCompile({ namespace: 'USER', name: 'X', version: 1 }, T('one'));
    expect(cache.getOrCompile({ namespace: 'USER', name: 'X', version: 1 }, 'not even parsed')).toBe(one);
    const two = cache.getOrCompile({ namespace: 'USER', name: 'X', version: 2 }, T('two'));
    expect((await two.run({})).target).toEqual({ v: 'two' });
    expect(cache.get({ namespace: 'OTHER', name: 'X', version: 1 })).toBeUndefined();
    cache.invalidate('X', 'USER');
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new TransformCache(2);
    cache.getOrCompile({ name: 'A', version: 1 }, T('a'));
    cache.getOrCompile({ name: 'B', version: 1 }, T('b'));
    cache.get({ name: 'A', version: 1 });
    cache.getOrCompile({ name: 'C', version: 1 }, T('c'));
    expect(cache.get({ name: 'B', version: 1 })).toBeUndefined();
    expect(cache.get({ name: 'A', version: 1 })).toBeDefined();
  });

  it('does not cache a transform that fails to compile', () => {
    const cache = new TransformCache();
    expect(() => cache.getOrCompile({ name: 'Bad', version: 1 }, '<transform/>')).toThrow(/needs the attribute "sourceClass"/);
    expect(cache.size).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { lazySerializerFactory } from './lazy-serializers.ts';

const route = (schema: unknown) => ({ method: 'GET', url: '/thing', httpStatus: '200', schema });

describe('lazySerializerFactory', () => {
  it("serializes a reply by its declared schema, as Fastify's own compiler does (undeclared fields left out)", () => {
    const serialize = lazySerializerFactory({}, {})(route({ type: 'object', properties: { name: { type: 'string' }, count: { type: 'integer' } } }));
    expect(serialize({ name: 'a', count: 2, secret: 'x' })).toBe('{"name":"a","count":2}');
    expect(serialize({ name: 'b', count: 3 })).toBe('{"name":"b","count":3}');
  });

  it('compiles a route only when it first replies, so a start compiles nothing', () => {
    // A reference to a schema nobody declared cannot compile: the failure shows when it first serializes.
    const serialize = lazySerializerFactory({}, {})(route({ type: 'object', properties: { item: { $ref: 'undeclared#' } } }));
    expect(() => serialize({ item: 1 })).toThrow();
  });
});

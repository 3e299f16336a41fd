/**
 * Fastify's reply serializers — fast-json-stringify functions built from each route's declared
 * replies by Fastify's own compiler, unchanged — compiled on a route's first reply instead of when
 * the server starts: compiling them for every declared route (twice, with the /v1 alias) took about
 * 200 ms of CPU of each start, for routes a run may never answer.
 */
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const fastifySerializers = SerializerSelector();

export const lazySerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = fastifySerializers(externalSchemas, options);
  return (route) => {
    let serialize: ((reply: unknown) => string) | undefined;
    return (reply: unknown) => (serialize ??= compile(route))(reply);
  };
};

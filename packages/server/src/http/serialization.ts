import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type BuildSerializer = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
type Serializer = (data: unknown) => string;

const select = SerializerSelector();
const builtByText = new Map<string, Serializer>();

/**
 * Fastify's own response serializers (fast-json-stringify), kept by the schema's text for the whole process: each
 * app gets its own copies of the route schemas, and building the serializers again cost about 0.8 s of CPU per app
 * (the test suites start a few hundred). A serializer is a pure function of its schema and options.
 */
function memoizedSerializers(externalSchemas: unknown, serializerOptions: unknown) {
  const build = select(externalSchemas as never, serializerOptions as never) as (route: { schema: unknown }) => Serializer;
  const prefix = `${JSON.stringify(externalSchemas ?? {})}\0${JSON.stringify(serializerOptions ?? {})}\0`;
  return (route: { schema: unknown }): Serializer => {
    const key = prefix + JSON.stringify(route.schema);
    let serializer = builtByText.get(key);
    if (!serializer) {
      serializer = build(route);
      builtByText.set(key, serializer);
    }
    return serializer;
  };
}

export const buildSerializer = memoizedSerializers as unknown as BuildSerializer;

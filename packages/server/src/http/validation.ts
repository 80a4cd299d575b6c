import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;

const COMMON = {
  // Unknown properties are errors, never silently dropped.
  removeAdditional: false,
  useDefaults: true,
  // Nullable fields are written as type lists (['array', 'null']) so a bad value gets one plain error.
  allowUnionTypes: true,
  allErrors: false,
  // Errors carry the offending value and schema, which the error messages quote.
  verbose: true,
} as const;

/**
 * One pool for the process: it keeps an Ajv per set of shared schemas and options. Fastify hands each app its own
 * copies of the route schemas, which Ajv's cache (keyed by object) never recognises, so compiled validators are also
 * kept by the schema's text: a second app in the same process (the test suites start a few hundred) reuses them
 * instead of compiling them again (about 0.7 s of CPU per app). A validator holds no state between calls but
 * its last `errors`, which Fastify reads synchronously, so apps can share one.
 */
const pooled = AjvCompiler() as unknown as (schemas: unknown, opts: unknown) => FastifySchemaCompiler<unknown>;
const compiledByText = new Map<string, ReturnType<FastifySchemaCompiler<unknown>>>();

function compilerWith(externalSchemas: unknown, options: unknown, customOptions: object): FastifySchemaCompiler<unknown> {
  const compile = pooled(externalSchemas, { ...(options as object), customOptions });
  const prefix = `${JSON.stringify(externalSchemas ?? {})}\0${JSON.stringify(customOptions)}\0`;
  return (route) => {
    const key = prefix + JSON.stringify(route.schema);
    let validator = compiledByText.get(key);
    if (!validator) {
      validator = compile(route);
      compiledByText.set(key, validator);
    }
    return validator;
  };
}

/**
 * Query strings and path parameters arrive as text, so they are coerced (only exact literals: "true", "12");
 * JSON bodies are typed already and are never coerced, so `"true"` is not a boolean and `1` is not a string.
 */
function splitValidator(externalSchemas: unknown, options: unknown): FastifySchemaCompiler<unknown> {
  const forText = compilerWith(externalSchemas, options, { ...COMMON, coerceTypes: 'array' });
  const forJson = compilerWith(externalSchemas, options, { ...COMMON, coerceTypes: false });
  return (route) => (route.httpPart === 'body' ? forJson(route) : forText(route));
}

// Fastify types this hook with Ajv's own compile signature; ours returns the validators Fastify actually calls.
export const buildValidator = splitValidator as unknown as BuildValidator;

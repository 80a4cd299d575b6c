import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import {
  DATADOG_SITES,
  HTTP_CONTENT_FORMATS,
  LOG_STREAM_CATEGORIES,
  LOG_STREAM_STATUSES,
  LOG_STREAM_TYPES,
  type DatadogRegion,
  type HttpContentFormat,
  type LogStreamCategory,
  type LogStreamStatus,
  type LogStreamType,
} from '../../services/log-streams/definition.js';
import { ERROR_RESPONSES, IdParams, NO_CONTENT_RESPONSES } from './schemas.js';
import { deleteHandler } from './resource-handlers.js';

const enumOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

const Filter = Type.Object(
  {
    type: Type.Literal('category', { description: 'Filter type: category (the only one).' }),
    name: enumOf<LogStreamCategory>(LOG_STREAM_CATEGORIES, 'Event category, e.g. auth.login.fail.'),
  },
  { additionalProperties: false },
);
const Filters = Type.Array(Filter, { maxItems: LOG_STREAM_CATEGORIES.length, description: 'Only events of these categories are delivered; omitted or empty: all events.' });

/** Every type's sink fields; which ones a stream's type takes is checked by the service (sink-rules.ts). */
const Sink = Type.Object(
  {
    httpEndpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'http: the URL events are POSTed to (https; http outside production).' })),
    httpContentType: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'http: the Content-Type header (default application/json).' })),
    httpContentFormat: Type.Optional(enumOf<HttpContentFormat>(HTTP_CONTENT_FORMATS, 'http: JSONLINES (default), JSONARRAY or JSONOBJECT.')),
    httpAuthorization: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'http: the Authorization header (stored sealed, shown masked).' })),
    httpCustomHeaders: Type.Optional(
      Type.Array(
        Type.Object(
          { header: Type.String({ minLength: 1, maxLength: 256, description: 'Header name.' }), value: Type.String({ maxLength: 4096, description: 'Header value (stored sealed, shown masked).' }) },
          { additionalProperties: false },
        ),
        { maxItems: 20, description: 'http: more headers to send: [{header, value}].' },
      ),
    ),
    datadogApiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'datadog: the API key (stored sealed, shown masked).' })),
    datadogRegion: Type.Optional(enumOf<DatadogRegion>(Object.keys(DATADOG_SITES) as DatadogRegion[], 'datadog: the site, us, eu, us3 or us5.')),
    splunkDomain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'splunk: the host name of the HTTP Event Collector.' })),
    splunkToken: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'splunk: the HEC token (stored sealed, shown masked).' })),
    splunkPort: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', description: 'splunk: the HEC port (default 8088).' })),
    splunkSecure: Type.Optional(Type.Boolean({ description: 'splunk: verify the collector\'s TLS certificate (default true).' })),
  },
  { additionalProperties: false },
);

const name = Type.String({ minLength: 1, maxLength: 200, description: 'Log stream name.' });
const isPriority = Type.Boolean({ description: 'Priority stream (set at creation; Latchkey delivers every stream alike).' });

const CreateBody = Type.Object(
  {
    name: Type.Optional(name),
    type: enumOf<LogStreamType>(LOG_STREAM_TYPES, 'Sink type: http, datadog or splunk.'),
    isPriority: Type.Optional(isPriority),
    filters: Type.Optional(Filters),
    sink: Sink,
    startFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Deliver from the first event dated at or after this instant (default: events from now on).' })),
  },
  { additionalProperties: false },
);

const UpdateBody = Type.Object(
  {
    name: Type.Optional(name),
    status: Type.Optional(enumOf<LogStreamStatus>(LOG_STREAM_STATUSES, 'active (delivery resumes where it stopped), paused or suspended.')),
    isPriority: Type.Optional(isPriority),
    filters: Type.Optional(Filters),
    sink: Type.Optional(Sink),
  },
  { additionalProperties: false, minProperties: 1 },
);

const LogStream = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: Type.String(),
    status: Type.String(),
    isPriority: Type.Boolean(),
    filters: Type.Optional(Type.Array(Filter)),
    sink: Sink,
    suspensionReason: Type.Optional(Type.String({ description: 'Why delivery suspended the stream (Latchkey\'s addition).' })),
  },
  { additionalProperties: false },
);

const StreamParams = IdParams('Log stream id.');

/** `/api/v2/log-streams`: the platform's log streams (services/log-streams; delivery.ts sends their events). */
export function logStreamsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = registry.logStreams;
    const tags = ['log-streams'];
    app.get(
      '/log-streams',
      { config: { scopes: ['read:log_streams'] }, schema: { tags, summary: 'List log streams', response: { 200: Type.Array(LogStream), ...ERROR_RESPONSES } } },
      async () => service.list(),
    );
    app.post(
      '/log-streams',
      { config: { scopes: ['create:log_streams'] }, schema: { tags, summary: 'Create a log stream', body: CreateBody, response: { 200: LogStream, ...ERROR_RESPONSES } } },
      async (request) => service.create(request.body),
    );
    app.get(
      '/log-streams/:id',
      { config: { scopes: ['read:log_streams'] }, schema: { tags, summary: 'Get a log stream', params: StreamParams, response: { 200: LogStream, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/log-streams/:id',
      {
        config: { scopes: ['update:log_streams'] },
        schema: { tags, summary: 'Update a log stream', params: StreamParams, body: UpdateBody, response: { 200: LogStream, ...ERROR_RESPONSES } },
      },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/log-streams/:id',
      { config: { scopes: ['delete:log_streams'] }, schema: { tags, summary: 'Delete a log stream', params: StreamParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id }) => service.remove(id)),
    );
  };
}

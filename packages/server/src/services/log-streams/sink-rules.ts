import { ServiceError } from '../errors.js';
import type { LogStreamSink, LogStreamType } from './definition.js';

/** The sink fields each type takes; any other is refused, as the platform's per-type sink schemas do. */
const FIELDS: Record<LogStreamType, readonly (keyof LogStreamSink)[]> = {
  http: ['httpEndpoint', 'httpContentType', 'httpContentFormat', 'httpAuthorization', 'httpCustomHeaders'],
  datadog: ['datadogApiKey', 'datadogRegion'],
  splunk: ['splunkDomain', 'splunkToken', 'splunkPort', 'splunkSecure'],
};
const REQUIRED: Record<LogStreamType, readonly (keyof LogStreamSink)[]> = {
  http: ['httpEndpoint'],
  datadog: ['datadogApiKey', 'datadogRegion'],
  splunk: ['splunkDomain', 'splunkToken'],
};

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable text and tabs: a line break in a header value would let it write headers of its own. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Headers the request sets itself (or that other sink fields set): a custom header may not replace them. */
const OWN_HEADERS = new Map([
  ['host', ''],
  ['content-length', ''],
  ['transfer-encoding', ''],
  ['connection', ''],
  ['content-type', ' (use httpContentType)'],
  ['authorization', ' (use httpAuthorization)'],
]);
/** A host name or an IPv4 address, without scheme, port or path. */
const HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

const invalid = (detail: string, property: string) => new ServiceError('invalid', `Payload validation error: '${detail}' on property sink.${property}.`, 'invalid_body');

function checkEndpoint(text: string, allowHttp: boolean) {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('Not a URL', 'httpEndpoint');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw invalid(allowHttp ? 'The URL must be https or http' : 'The URL must be https', 'httpEndpoint');
  }
  // Credentials in the URL would be shown by every read of the stream; httpAuthorization is sealed and masked.
  if (url.username || url.password) throw invalid('The URL must not carry credentials (use httpAuthorization)', 'httpEndpoint');
}

function checkHeaders(sink: LogStreamSink) {
  const seen = new Set<string>();
  for (const [index, { header, value }] of (sink.httpCustomHeaders ?? []).entries()) {
    const name = header.toLowerCase();
    if (!HEADER_NAME.test(header)) throw invalid('Not an HTTP header name', `httpCustomHeaders[${index}].header`);
    const own = OWN_HEADERS.get(name);
    if (own !== undefined) throw invalid(`The ${name} header cannot be set here${own}`, `httpCustomHeaders[${index}].header`);
    if (seen.has(name)) throw invalid('The header is given twice', `httpCustomHeaders[${index}].header`);
    seen.add(name);
    if (!HEADER_VALUE.test(value)) throw invalid('Only printable characters are allowed', `httpCustomHeaders[${index}].value`);
  }
}

/**
 * The sink of a `type` stream, checked (its fields, the required ones present, an endpoint that delivery can
 * send to) and with the defaults filled in; a ServiceError (400 `invalid_body`) names the first problem.
 */
export function checkedSink(type: LogStreamType, sink: LogStreamSink, options: { allowHttp: boolean }): LogStreamSink {
  const allowed = new Set<string>(FIELDS[type]);
  for (const [field, value] of Object.entries(sink)) {
    if (value !== undefined && !allowed.has(field)) throw invalid(`Additional properties not allowed for a ${type} stream: ${field}`, field);
  }
  for (const field of REQUIRED[type]) if (sink[field] === undefined) throw invalid(`Missing required property: ${field}`, field);
  // Sent as header values.
  for (const field of ['httpContentType', 'httpAuthorization', 'datadogApiKey', 'splunkToken'] as const) {
    const value = sink[field];
    if (value !== undefined && !HEADER_VALUE.test(value)) throw invalid('Only printable characters are allowed', field);
  }
  switch (type) {
    case 'http':
      checkEndpoint(sink.httpEndpoint ?? '', options.allowHttp);
      checkHeaders(sink);
      return { httpContentType: 'application/json', httpContentFormat: 'JSONLINES', ...sink };
    case 'datadog':
      return sink;
    case 'splunk': {
      if (!HOST.test(sink.splunkDomain ?? '')) throw invalid('A host name, without scheme, port or path', 'splunkDomain');
      const port = sink.splunkPort ?? '8088';
      if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw invalid('A port number, 1 to 65535', 'splunkPort');
      return { ...sink, splunkPort: port, splunkSecure: sink.splunkSecure ?? true };
    }
  }
}

import type { LogEvent } from '../events/event.js';
import { DATADOG_SITES, type DatadogRegion, type LogStreamSink, type LogStreamType } from './definition.js';
import type { SinkRequest } from './http-post.js';

/** An event as streams deliver it, in the platform's envelope: `{log_id, data: {...the event, log_id}}`. */
export interface DeliveredEvent {
  log_id: string;
  data: LogEvent;
}

/** Where the sinks without a URL of their own send to; tests point Datadog's intake at a local receiver. */
export interface SinkEndpoints {
  datadogIntake(region: DatadogRegion): string;
}

export const DEFAULT_SINK_ENDPOINTS: SinkEndpoints = {
  // Datadog's log intake (HTTP API v2) of the region's site.
  datadogIntake: (region) => `https://http-intake.logs.${DATADOG_SITES[region]}/api/v2/logs`,
};

const USER_AGENT = 'Latchkey-LogStreams';

/**
 * The body of an `http` sink in its content format: JSONARRAY is one JSON array of the batch's events,
 * JSONLINES one event per line, JSONOBJECT one object `{"logs": [...]}` holding them.
 */
function httpBody(format: LogStreamSink['httpContentFormat'], events: readonly DeliveredEvent[]): string {
  switch (format) {
    case 'JSONARRAY':
      return JSON.stringify(events);
    case 'JSONOBJECT':
      return JSON.stringify({ logs: events });
    default:
      return events.map((event) => JSON.stringify(event)).join('\n');
  }
}

/** The request that delivers a batch to a sink. The sink was checked when it was stored (streams.ts). */
export function sinkRequest(type: LogStreamType, sink: LogStreamSink, events: readonly DeliveredEvent[], endpoints: SinkEndpoints = DEFAULT_SINK_ENDPOINTS): SinkRequest {
  switch (type) {
    case 'http': {
      const headers: Record<string, string> = {};
      for (const { header, value } of sink.httpCustomHeaders ?? []) headers[header.toLowerCase()] = value;
      headers['content-type'] = sink.httpContentType ?? 'application/json';
      headers['user-agent'] = USER_AGENT;
      if (sink.httpAuthorization !== undefined) headers.authorization = sink.httpAuthorization;
      return { url: new URL(sink.httpEndpoint ?? ''), headers, body: httpBody(sink.httpContentFormat, events), verifyTls: true };
    }
    case 'datadog':
      // Datadog's intake takes a JSON array of log entries; `ddsource: auth0` selects its pipeline for the
      // platform's events, which reads the envelope's fields as they are.
      return {
        url: new URL(endpoints.datadogIntake(sink.datadogRegion ?? 'us')),
        headers: { 'content-type': 'application/json', 'dd-api-key': sink.datadogApiKey ?? '', 'user-agent': USER_AGENT },
        body: JSON.stringify(
          events.map((event) => ({
            ddsource: 'auth0',
            service: 'latchkey',
            hostname: event.data.hostname,
            message: event.data.description ?? event.data.type,
            ...event,
          })),
        ),
        verifyTls: true,
      };
    case 'splunk':
      // Splunk's HTTP Event Collector: one JSON object per event, back to back; `time` in epoch seconds.
      return {
        url: new URL(`https://${sink.splunkDomain ?? ''}:${sink.splunkPort ?? '8088'}/services/collector/event`),
        headers: { 'content-type': 'application/json', authorization: `Splunk ${sink.splunkToken ?? ''}`, 'user-agent': USER_AGENT },
        body: events
          .map((event) => JSON.stringify({ time: Date.parse(event.data.date) / 1000, host: event.data.hostname, source: 'latchkey', sourcetype: 'auth0', event }))
          .join('\n'),
        verifyTls: sink.splunkSecure ?? true,
      };
  }
}

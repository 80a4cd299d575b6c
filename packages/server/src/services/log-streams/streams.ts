import { randomId } from '../../crypto/random.js';
import { LOG_ID_PREFIX, logIdOf } from '../../storage/repositories/log-events.js';
import type { LogStreamRecord } from '../../storage/repositories/log-streams.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import { found } from '../unique.js';
import type { LogStreamFilter, LogStreamSink, LogStreamStatus, LogStreamType, StoredLogStream } from './definition.js';
import { checkedSink } from './sink-rules.js';
import { maskedSink, unmasked, type LogStreamSecrets } from './stream-secrets.js';

/** Streams a tenant may have: each one is a delivery loop on some node, and a labelled series of the lag metric. */
export const MAX_LOG_STREAMS = 10;

export interface LogStreamInput {
  name?: string;
  type: LogStreamType;
  isPriority?: boolean;
  filters?: LogStreamFilter[];
  sink: LogStreamSink;
  /** Deliver from the first event dated at or after this instant (ISO 8601) rather than from now on. */
  startFrom?: string;
}

export interface LogStreamPatch {
  name?: string;
  status?: LogStreamStatus;
  isPriority?: boolean;
  filters?: LogStreamFilter[];
  /** Fields to change; the others keep their values. A credential sent back masked keeps the stored one. */
  sink?: LogStreamSink;
}

/** A stream as the API answers it: credentials masked. */
export interface LogStreamView {
  id: string;
  name: string;
  type: LogStreamType;
  status: LogStreamStatus;
  isPriority: boolean;
  filters?: LogStreamFilter[];
  sink: LogStreamSink;
  /** Why delivery suspended the stream (Latchkey's addition; present only while it is suspended for a reason). */
  suspensionReason?: string;
}

export interface LogStreamsDeps {
  storage: Pick<Storage, 'logStreams' | 'logEvents'>;
  tenantId: string;
  secrets: LogStreamSecrets;
  /** Whether an `http` sink may be plain http (development and tests; never in production). */
  allowHttp: boolean;
  now: () => Date;
}

const noStream = () => new ServiceError('not_found', 'The log stream does not exist.', 'inexistent_resource');

/** The platform's stream ids: `lst_` and 16 characters. */
const newStreamId = () => `lst_${randomId(16)}`;

/** The id just before `logId` (the position from which delivery starts with that event). */
const before = (logId: string) => logIdOf(Number(logId.slice(LOG_ID_PREFIX.length)) - 1);

/** The Management API's log streams: settings stored with their credentials sealed, answered with them masked. */
export function logStreamsService(deps: LogStreamsDeps) {
  const { storage, tenantId, secrets } = deps;

  const view = (record: LogStreamRecord<StoredLogStream>): LogStreamView => {
    const { name, type, isPriority, filters } = record.data;
    return {
      id: record.id,
      name,
      type,
      status: record.status,
      isPriority,
      ...(filters !== undefined ? { filters } : {}),
      sink: maskedSink(secrets.open(record.data)),
      ...(record.status === 'suspended' && record.statusReason ? { suspensionReason: record.statusReason } : {}),
    };
  };

  const stored = async (id: string) => found(await storage.logStreams.get<StoredLogStream>(tenantId, id), noStream);

  /** Where a new stream starts: after the newest event stored now, or before the first one dated `startFrom` or later. */
  async function startingPosition(startFrom: string | undefined): Promise<string | null> {
    if (startFrom !== undefined) {
      const [first] = (await storage.logEvents.list(tenantId, { where: { dateFrom: new Date(startFrom).toISOString() }, sort: 'asc', limit: 1 })).events;
      if (first) return before(first.log_id);
    }
    const [newest] = (await storage.logEvents.list(tenantId, { sort: 'desc', limit: 1 })).events;
    return newest?.log_id ?? null;
  }

  return {
    async list(): Promise<LogStreamView[]> {
      return (await storage.logStreams.list<StoredLogStream>(tenantId)).map(view);
    },

    async get(id: string): Promise<LogStreamView> {
      return view(await stored(id));
    },

    async create(input: LogStreamInput): Promise<LogStreamView> {
      if ((await storage.logStreams.count(tenantId)) >= MAX_LOG_STREAMS) {
        throw new ServiceError('invalid', `A tenant can have at most ${MAX_LOG_STREAMS} log streams.`, 'invalid_operation');
      }
      const sink = checkedSink(input.type, input.sink, { allowHttp: deps.allowHttp });
      const data: StoredLogStream = {
        name: input.name ?? input.type,
        type: input.type,
        isPriority: input.isPriority ?? false,
        ...(input.filters !== undefined ? { filters: input.filters } : {}),
        ...secrets.seal(sink),
      };
      const id = newStreamId();
      await storage.logStreams.insert(tenantId, { id, data, status: 'active', position: await startingPosition(input.startFrom), createdAt: deps.now().toISOString() });
      return view(await stored(id));
    },

    async update(id: string, patch: LogStreamPatch): Promise<LogStreamView> {
      const record = await stored(id);
      const current = record.data;
      if (patch.isPriority !== undefined && patch.isPriority !== current.isPriority) {
        throw new ServiceError('invalid', 'isPriority is set when a log stream is created and cannot be changed.', 'invalid_body');
      }
      let data = current;
      if (patch.name !== undefined || patch.filters !== undefined || patch.sink !== undefined) {
        const opened = secrets.open(current);
        const sink = patch.sink ? checkedSink(current.type, { ...opened, ...unmasked(patch.sink, opened) }, { allowHttp: deps.allowHttp }) : opened;
        data = {
          name: patch.name ?? current.name,
          type: current.type,
          isPriority: current.isPriority,
          ...((patch.filters ?? current.filters) !== undefined ? { filters: patch.filters ?? current.filters } : {}),
          ...secrets.seal(sink),
        };
      }
      // Set active again (from paused or suspended): delivery resumes at the stored position, its failures forgotten.
      const resume = patch.status === 'active' && record.status !== 'active';
      const change = {
        ...(data !== current ? { data } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(resume ? { resume } : {}),
      };
      if (Object.keys(change).length > 0 && !(await storage.logStreams.update(tenantId, id, change))) throw noStream();
      return view(await stored(id));
    },

    async remove(id: string): Promise<void> {
      if (!(await storage.logStreams.remove(tenantId, id))) throw noStream();
    },
  };
}

export type LogStreams = ReturnType<typeof logStreamsService>;

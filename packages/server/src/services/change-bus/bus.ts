import type { Logger } from 'pino';
import { randomId } from '../../crypto/random.js';
import { CHANGED_TABLES, type ChangedTable } from '../../storage/repositories/index.js';
import type { Storage } from '../../storage/storage.js';

/** A broadcast channel between the nodes of a deployment, which may drop and come back. */
export interface ChangeTransport {
  /** Sends `message` to every listening node (this one may hear it too); rejects when it could not be sent. */
  publish(message: string): Promise<void>;
  /**
   * Starts listening in the background and keeps at it through lost connections. `onListening` runs each time
   * listening (re)starts: messages sent while it was down are lost by then.
   */
  listen(handlers: { onMessage(message: string): void; onListening(): void }): void;
  close(): Promise<void>;
}

export interface ChangeBusDeps {
  storage: Storage;
  transport: ChangeTransport;
  /** Names the deployment's data (schema and tenant): a message of another one that shares the channel is ignored. */
  scope: string;
  log: Pick<Logger, 'warn' | 'info'>;
}

export interface ChangeBus {
  close(): Promise<void>;
}

interface Message {
  scope: string;
  node: string;
  tables: ChangedTable[];
}

const KNOWN = new Set<string>(CHANGED_TABLES);

function parse(text: string): Message | undefined {
  try {
    const value = JSON.parse(text) as Partial<Message> | null;
    if (typeof value?.scope !== 'string' || typeof value.node !== 'string' || !Array.isArray(value.tables)) return undefined;
    return { scope: value.scope, node: value.node, tables: value.tables.filter((table): table is ChangedTable => KNOWN.has(table)) };
  } catch {
    return undefined;
  }
}

/**
 * Carries the changes that must not wait for a cache's lifetime (a revoked signing key or grant, a deleted client,
 * any configuration write) from the node that made them to every other node, within the time a message takes.
 * Each local write announced by storage.onChange is published (writes made during one turn of the event loop in
 * one message); each message of another node is replayed to this node's listeners as storage.changedElsewhere, so
 * every cache that drops entries on a local write drops them on a remote one too. A transaction's tables are
 * announced once more after it committed (storage.ts), so a node that reloaded between write and commit reloads again.
 *
 * Messages are not stored: when listening restarts after a lost connection, this node assumes that it missed
 * some and drops every cache. While the transport is down the caches' own lifetimes bound how stale they get.
 * `users` is not published: no cache holds users (every request reads them) and a login writes one.
 */
export function startChangeBus(deps: ChangeBusDeps): ChangeBus {
  const { storage, transport, scope, log } = deps;
  const node = randomId(16);
  const pending = new Set<ChangedTable>();
  let scheduled = false;
  let failing = false;
  let closed = false;

  async function publishPending(): Promise<void> {
    scheduled = false;
    if (pending.size === 0) return;
    const message: Message = { scope, node, tables: [...pending] };
    pending.clear();
    try {
      await transport.publish(JSON.stringify(message));
      if (failing) log.info('change bus: publishing again');
      failing = false;
    } catch (error) {
      // Other nodes then see this change when their caches expire. Logged once per outage, without the error's
      // details beyond its message (a connection error must not end up logging credentials).
      if (!failing) log.warn({ reason: (error as Error).message }, 'change bus: could not publish a change; other nodes see it when their caches expire');
      failing = true;
    }
  }

  storage.onChange((table, origin) => {
    if (origin !== 'local' || table === 'users' || closed) return;
    pending.add(table);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void publishPending());
  });

  transport.listen({
    onMessage(text) {
      const message = parse(text);
      if (!message || message.scope !== scope || message.node === node) return;
      for (const table of message.tables) storage.changedElsewhere(table);
    },
    onListening() {
      for (const table of CHANGED_TABLES) storage.changedElsewhere(table);
    },
  });

  return {
    async close() {
      closed = true;
      await publishPending();
      await transport.close();
    },
  };
}

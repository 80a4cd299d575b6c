import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChangeTransport } from './bus.js';

export interface RedisTransportOptions {
  /** The node's Redis connection (services/redis.ts): it publishes, and a duplicate of it subscribes. */
  redis: Redis;
  /** One channel per tenant, so that deployments sharing a Redis hear little of each other. */
  channel: string;
  /** The subscribed connection's name (CLIENT LIST shows whose it is). */
  connectionName: string;
  log: Pick<Logger, 'warn' | 'info'>;
}

/**
 * Redis pub/sub. A subscribed connection can do nothing else, so it is a duplicate of the node's connection, with
 * the same reconnection strategy (it never gives up). It subscribes itself each time it is ready, rather than
 * relying on the client's automatic resubscription, so that the bus learns exactly when listening has restarted.
 */
export function redisTransport(options: RedisTransportOptions): ChangeTransport {
  const { redis, channel, connectionName, log } = options;
  let subscriber: Redis | undefined;
  let down = false;
  let closed = false;

  return {
    async publish(message) {
      await redis.publish(channel, message);
    },
    listen(handlers) {
      const connection = redis.duplicate({ autoResubscribe: false, connectionName });
      subscriber = connection;
      // Heard, a connection error ends nothing; unheard, it would end the process. Logged once per outage.
      connection.on('error', (error: Error) => {
        if (down || closed) return;
        down = true;
        log.warn({ reason: error.message }, "change bus: not subscribed to Redis; retrying (other nodes' changes are seen when caches expire meanwhile)");
      });
      connection.on('message', (from: string, message: string) => {
        if (from === channel) handlers.onMessage(message);
      });
      connection.on('ready', () => {
        connection.subscribe(channel).then(
          () => {
            if (down) log.info('change bus: subscribed to Redis again');
            down = false;
            handlers.onListening();
          },
          // Connected but not subscribed: start over, so that the next connection subscribes.
          () => connection.disconnect(true),
        );
      });
    },
    async close() {
      closed = true;
      subscriber?.disconnect();
    },
  };
}

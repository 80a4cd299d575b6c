import type { Kysely } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The files jobs produce (users exports), in ordered chunks of bytes. Each chunk is a complete gzip member, so
 * the chunks in order are one gzip file (RFC 1952 allows several members), a download streams them as they are,
 * and a run taken over after a restart appends members after the last one it recorded.
 */
export function jobOutputs(dialect: DialectName) {
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('job_outputs')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('content', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('job_outputs_pk', ['tenant_id', 'job_id', 'seq'])
        .execute();
    },
  };
}

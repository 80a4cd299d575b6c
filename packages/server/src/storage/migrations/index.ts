import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';
import { initial } from './0001-initial.js';
import { artifacts } from './0002-artifacts.js';
import { userLinks } from './0003-user-links.js';
import { refreshTokenChains } from './0004-refresh-token-chains.js';
import { promptCustomTexts } from './0005-prompt-custom-texts.js';
import { logEvents } from './0006-log-events.js';
import { logSearchIndexes } from './0007-log-search-indexes.js';
import { logStreams } from './0008-log-streams.js';
import { userSearchIndexes } from './0009-user-search-indexes.js';
import { jobs } from './0010-jobs.js';
import { jobOutputs } from './0011-job-outputs.js';
import { userMetadataIndexes } from './0012-user-metadata-indexes.js';
import { userMetadataValues } from './0013-user-metadata-values.js';
import { roles } from './0014-roles.js';
import { userGrants } from './0015-user-grants.js';
import { organizations } from './0016-organizations.js';
import { actions } from './0017-actions.js';
import { authenticators } from './0018-authenticators.js';
import { webauthnCredentials } from './0019-webauthn-credentials.js';

/** Every migration, in order. Names are fixed once released: they are the keys in the migration table. */
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-initial': initial(dialect),
    '0002-artifacts': artifacts,
    '0003-user-links': userLinks,
    '0004-refresh-token-chains': refreshTokenChains,
    '0005-prompt-custom-texts': promptCustomTexts,
    '0006-log-events': logEvents,
    '0007-log-search-indexes': logSearchIndexes,
    '0008-log-streams': logStreams,
    '0009-user-search-indexes': userSearchIndexes(dialect),
    '0010-jobs': jobs,
    '0011-job-outputs': jobOutputs(dialect),
    '0012-user-metadata-indexes': userMetadataIndexes(dialect),
    '0013-user-metadata-values': userMetadataValues(dialect),
    '0014-roles': roles,
    '0015-user-grants': userGrants,
    '0016-organizations': organizations,
    '0017-actions': actions,
    '0018-authenticators': authenticators,
    '0019-webauthn-credentials': webauthnCredentials,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function migrator(db: Kysely<any>, dialect: DialectName): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with several schemas in one
  // database (tests, or tenants of a shared server) it must be the one this connection works in.
  const schema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<MigrationResultSet> {
  const result = await (await migrator(db, dialect)).migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

/** Up to and including the named migration (tests of a migration's data conversion start from the one before). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateTo(db: Kysely<any>, dialect: DialectName, name: string): Promise<MigrationResultSet> {
  const result = await (await migrator(db, dialect)).migrateTo(name);
  if (result.error) throw result.error;
  return result;
}

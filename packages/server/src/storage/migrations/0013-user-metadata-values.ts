import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The rows of `user_metadata_values` for a trigger's `new` row, or (`fromUsers`) for every row of the users table:
 * each scalar value of a metadata key, and each scalar element of an array value.
 */
const valuesOf = (row: 'new' | 'u', fromUsers = false) => {
  const source = `${fromUsers ? 'users u, ' : ''}(select 'app_metadata' as field union all select 'user_metadata') f, json_each(${row}.data, '$.' || f.field) j`;
  return `
  select ${row}.tenant_id, ${row}.user_id, f.field, j.key, j.atom from ${source}
  where typeof(j.key) = 'text' and j.type not in ('object', 'array')
  union all
  select ${row}.tenant_id, ${row}.user_id, f.field, j.key, e.atom from ${source}, json_each(j.value) e
  where typeof(j.key) = 'text' and j.type = 'array' and e.type not in ('object', 'array')`;
};

/**
 * SQLite has no index over arbitrary JSON keys, so a user search by a metadata value (`user_metadata.customer:"c42"`)
 * read every user of the tenant (half a second at 100,000 users). This keeps the metadata's values, one row per
 * key and value (each element of an array too), in a table whose index answers that search; triggers keep it in
 * step with the users table, and a write that leaves both metadata objects as they were (a login) does not touch
 * it. PostgreSQL has GIN indexes instead (0012-user-metadata-indexes).
 */
export function userMetadataValues(dialect: DialectName) {
  return {
    async up(db: AnyDb): Promise<void> {
      if (dialect !== 'sqlite') return;
      // `value` has no declared type: values keep theirs (text, integer, real; true and false are 1 and 0).
      await sql.raw('create table user_metadata_values (tenant_id text not null, user_id text not null, field text not null, key text not null, value)').execute(db);
      await sql.raw('create index user_metadata_values_lookup on user_metadata_values (tenant_id, field, key, value)').execute(db);
      await sql.raw('create index user_metadata_values_user on user_metadata_values (tenant_id, user_id)').execute(db);
      await sql.raw(`insert into user_metadata_values (tenant_id, user_id, field, key, value) ${valuesOf('u', true)}`).execute(db);
      await sql.raw(`create trigger users_metadata_insert after insert on users begin insert into user_metadata_values (tenant_id, user_id, field, key, value) ${valuesOf('new')}; end`).execute(db);
      await sql.raw(
        `create trigger users_metadata_update after update of data on users
         when json_extract(old.data, '$.app_metadata') is not json_extract(new.data, '$.app_metadata')
           or json_extract(old.data, '$.user_metadata') is not json_extract(new.data, '$.user_metadata')
         begin
           delete from user_metadata_values where tenant_id = old.tenant_id and user_id = old.user_id;
           insert into user_metadata_values (tenant_id, user_id, field, key, value) ${valuesOf('new')};
         end`,
      ).execute(db);
      await sql.raw('create trigger users_metadata_delete after delete on users begin delete from user_metadata_values where tenant_id = old.tenant_id and user_id = old.user_id; end').execute(db);
    },
  };
}

import type { Kysely, Selectable } from 'kysely';
import type { ArtifactsTable, Database } from '../schema.js';
import { fromJson, toJson } from './json.js';
import type { PageOf, PageWindow } from './page.js';
import { reusableQuery } from './reusable-query.js';

/** The kinds of short-lived protocol state (see migrations/0002-artifacts). */
export type ArtifactKind =
  | 'session'
  | 'login_transaction'
  | 'authorization_code'
  | 'refresh_token'
  | 'client_assertion'
  | 'login_ticket'
  | 'otp'
  | 'password_reset'
  | 'email_verification'
  | 'login_failures'
  | 'user_block'
  | 'ip_failures'
  | 'unblock_ticket'
  | 'saml_assertion'
  | 'saml_logout_request'
  /** Multi-factor authentication: tokens of a pending second factor, codes sent by SMS or e-mail, enrollment tickets. */
  | 'mfa_token'
  | 'mfa_oob'
  | 'mfa_enrollment_ticket'
  /** Written and read by grant-revocations.ts only. */
  | 'revoked_grant';

export interface Artifact<Data> {
  id: string;
  family: string | null;
  subject: string | null;
  data: Data;
  createdAt: string;
  expiresAt: string;
  consumedAt: string | null;
}

export interface NewArtifact<Data> {
  id: string;
  family?: string | null;
  subject?: string | null;
  data: Data;
  createdAt: string;
  expiresAt: string;
}

function toArtifact<Data>(row: Selectable<ArtifactsTable>): Artifact<Data> {
  return {
    id: row.id,
    family: row.family,
    subject: row.subject,
    data: fromJson<Data>(row.data),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
  };
}

/** Times are ISO 8601 strings from `Date.toISOString()`, so they order as text in both dialects. */
export function artifactsRepository(db: Kysely<Database>) {
  const scoped = (tenantId: string, kind: ArtifactKind) =>
    db.selectFrom('artifacts').selectAll().where('tenant_id', '=', tenantId).where('kind', '=', kind);

  // Compiled once (reusable-query.ts): these run several times in every login, code exchange and refresh.
  const selectById = reusableQuery(db, 3, (tenantId: string, kind: ArtifactKind, id: string) => scoped(tenantId, kind).where('id', '=', id));
  const selectTwo = reusableQuery(db, 5, (tenantId: string, firstKind: ArtifactKind, firstId: string, secondKind: ArtifactKind, secondId: string) =>
    db
      .selectFrom('artifacts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where((eb) =>
        eb.or([eb.and([eb('kind', '=', firstKind), eb('id', '=', firstId)]), eb.and([eb('kind', '=', secondKind), eb('id', '=', secondId)])]),
      ),
  );
  const consumeRow = reusableQuery(db, 4, (tenantId: string, kind: ArtifactKind, id: string, now: string) =>
    db
      .updateTable('artifacts')
      .set({ consumed_at: now })
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('id', '=', id)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll(),
  );
  const insertRow = reusableQuery(
    db,
    8,
    (tenantId: string, kind: ArtifactKind, id: string, family: string | null, subject: string | null, data: string, createdAt: string, expiresAt: string) =>
      db
        .insertInto('artifacts')
        .values({ tenant_id: tenantId, kind, id, family, subject, data, created_at: createdAt, expires_at: expiresAt, consumed_at: null })
        .onConflict((oc) => oc.doNothing()),
  );

  /** The update of a live row whose data is still `expected`: the compare-and-swap of `swap`, with or without the expiry. */
  const liveSwap = (tenantId: string, kind: ArtifactKind, id: string, expected: string, now: string, set: { data: string; expires_at?: string }) =>
    db
      .updateTable('artifacts')
      .set(set)
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('id', '=', id)
      .where('data', '=', expected)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now);
  const swapDataOnly = reusableQuery(db, 6, (tenantId: string, kind: ArtifactKind, id: string, expected: string, next: string, now: string) =>
    liveSwap(tenantId, kind, id, expected, now, { data: next }),
  );
  const swapRow = reusableQuery(db, 7, (tenantId: string, kind: ArtifactKind, id: string, expected: string, next: string, now: string, expiresAt: string) =>
    liveSwap(tenantId, kind, id, expected, now, { data: next, expires_at: expiresAt }),
  );

  const repository = {
    /** False when an artifact with this id exists already (e.g. a replayed client-assertion `jti`). */
    async insert<Data>(tenantId: string, kind: ArtifactKind, artifact: NewArtifact<Data>): Promise<boolean> {
      const result = await insertRow(
        tenantId,
        kind,
        artifact.id,
        artifact.family ?? null,
        artifact.subject ?? null,
        toJson(artifact.data),
        artifact.createdAt,
        artifact.expiresAt,
      );
      return Number(result.numAffectedRows ?? 0) > 0;
    },

    /**
     * Writes the artifact whatever was stored under its id before (live, consumed or expired): counters and
     * one-per-key state. Callers that must not lose a concurrent write hold a lock or run in a transaction.
     */
    async replace<Data>(tenantId: string, kind: ArtifactKind, artifact: NewArtifact<Data>): Promise<void> {
      await db.deleteFrom('artifacts').where('tenant_id', '=', tenantId).where('kind', '=', kind).where('id', '=', artifact.id).execute();
      await repository.insert(tenantId, kind, artifact);
    },

    /** The artifact, live or not: callers that care check `expiresAt` and `consumedAt` (replay detection does). */
    async get<Data>(tenantId: string, kind: ArtifactKind, id: string): Promise<Artifact<Data> | undefined> {
      const [row] = (await selectById(tenantId, kind, id)).rows;
      return row && toArtifact<Data>(row);
    },

    /** Two artifacts, live or not, read in one statement (one round trip on PostgreSQL), in the order asked. */
    async getTwo<First, Second>(
      tenantId: string,
      first: readonly [ArtifactKind, string],
      second: readonly [ArtifactKind, string],
    ): Promise<[Artifact<First> | undefined, Artifact<Second> | undefined]> {
      const { rows } = await selectTwo(tenantId, first[0], first[1], second[0], second[1]);
      const find = (kind: ArtifactKind, id: string) => rows.find((row) => row.kind === kind && row.id === id);
      const one = find(...first);
      const two = find(...second);
      return [one && toArtifact<First>(one), two && toArtifact<Second>(two)];
    },

    /** Live (unconsumed, unexpired) artifacts of a family or a subject. */
    async listLive<Data>(tenantId: string, kind: ArtifactKind, by: { family?: string; subject?: string }, now: string): Promise<Artifact<Data>[]> {
      let query = scoped(tenantId, kind).where('expires_at', '>', now).where('consumed_at', 'is', null);
      if (by.family !== undefined) query = query.where('family', '=', by.family);
      if (by.subject !== undefined) query = query.where('subject', '=', by.subject);
      return (await query.orderBy('created_at').execute()).map((row) => toArtifact<Data>(row));
    },

    /**
     * One window of a subject's live artifacts of a kind, oldest first (ties by id, so pages never overlap), and how
     * many there are: the Management API pages a user's sessions and refresh tokens with it.
     */
    async pageLive<Data>(tenantId: string, kind: ArtifactKind, subject: string, now: string, window: PageWindow): Promise<PageOf<Artifact<Data>>> {
      const live = db
        .selectFrom('artifacts')
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', kind)
        .where('subject', '=', subject)
        .where('expires_at', '>', now)
        .where('consumed_at', 'is', null);
      const [rows, total] = await Promise.all([
        live.selectAll().orderBy('created_at').orderBy('id').offset(window.offset).limit(window.limit).execute(),
        live.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((row) => toArtifact<Data>(row)), total: Number(total.n) };
    },

    /**
     * Marks a live artifact consumed and returns it, in one conditional UPDATE: of two concurrent callers exactly
     * one gets it. Undefined when it is unknown, expired or already consumed.
     */
    async consume<Data>(tenantId: string, kind: ArtifactKind, id: string, now: string): Promise<Artifact<Data> | undefined> {
      const [row] = (await consumeRow(tenantId, kind, id, now)).rows;
      return row && toArtifact<Data>(row);
    },

    /** Replaces the data (and optionally the expiry) of a live artifact; false when it is gone or consumed. */
    async update<Data>(tenantId: string, kind: ArtifactKind, id: string, data: Data, now: string, expiresAt?: string): Promise<boolean> {
      const result = await db
        .updateTable('artifacts')
        .set({ data: toJson(data), ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) })
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', kind)
        .where('id', '=', id)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Compare-and-swap: replaces the data (and the expiry, when one is given) of a live artifact only if its data is
     * still `expected` (as read before). Of two concurrent callers that read the same state exactly one succeeds;
     * false otherwise. Leaving the expiry alone is the cheaper write: the expiry index is not touched (on SQLite about
     * half the time of a refresh-token rotation on a large table).
     */
    async swap<Data>(tenantId: string, kind: ArtifactKind, id: string, expected: Data, next: Data, now: string, expiresAt?: string): Promise<boolean> {
      const before = toJson(expected);
      const after = toJson(next);
      const result = await (expiresAt === undefined ? swapDataOnly(tenantId, kind, id, before, after, now) : swapRow(tenantId, kind, id, before, after, now, expiresAt));
      return Number(result.numAffectedRows ?? 0) > 0;
    },

    async remove(tenantId: string, kind: ArtifactKind, id: string): Promise<boolean> {
      const result = await db.deleteFrom('artifacts').where('tenant_id', '=', tenantId).where('kind', '=', kind).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * Ends every artifact of a family (all kinds, or only `kinds`): a replayed code or refresh token revokes its whole
     * grant; an administrator ending a session by its id names the kind, so that no other family answers to that id.
     */
    async revokeFamily(tenantId: string, family: string, now: string, kinds?: readonly ArtifactKind[]): Promise<number> {
      let update = db
        .updateTable('artifacts')
        .set({ consumed_at: now, expires_at: now })
        .where('tenant_id', '=', tenantId)
        .where('family', '=', family)
        .where('expires_at', '>', now);
      if (kinds !== undefined) update = update.where('kind', 'in', [...kinds]);
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Ends every live artifact of these kinds held by a subject (a new password ends sessions and refresh tokens). */
    async revokeSubject(tenantId: string, subject: string, kinds: readonly ArtifactKind[], now: string): Promise<number> {
      if (kinds.length === 0) return 0;
      const result = await db
        .updateTable('artifacts')
        .set({ consumed_at: now, expires_at: now })
        .where('tenant_id', '=', tenantId)
        .where('subject', '=', subject)
        .where('kind', 'in', [...kinds])
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * Deletes up to `limit` artifacts (any tenant) that expired at or before `before`; returns how many went. The
     * limit keeps each statement short: a backlog goes in several statements, not one long write lock.
     */
    async sweep(before: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('artifacts')
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple('tenant_id', 'kind', 'id'),
            'in',
            selectFrom('artifacts').select(['tenant_id', 'kind', 'id']).where('expires_at', '<=', before).limit(limit).$asTuple('tenant_id', 'kind', 'id'),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
  return repository;
}

export type ArtifactsRepository = ReturnType<typeof artifactsRepository>;

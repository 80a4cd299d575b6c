import type { StorageDialect } from './dialects/dialect.js';
import { createRepositories, type ChangedTable, type Repositories } from './repositories/index.js';

/** `local`: this process wrote; `remote`: another node did, as its change bus told this one (services/change-bus). */
export type ChangeOrigin = 'local' | 'remote';
export type ChangeListener = (table: ChangedTable, origin: ChangeOrigin) => void;

/** The one storage interface the rest of the server sees: repositories, transactions and exclusive sections. */
export interface Storage extends Repositories {
  readonly dialect: StorageDialect;
  /** All-or-nothing work across repositories. */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /** A transaction that also holds a database-wide named lock (several nodes on one database). */
  exclusive<T>(lockName: string, work: (repos: Repositories) => Promise<T>): Promise<T>;
  /**
   * Called after this process wrote an announced table (for a transaction: once more after it ended), so that
   * caches drop what they hold; and for writes of other nodes that a change bus delivers (`changedElsewhere`).
   */
  onChange(listener: ChangeListener): void;
  /** Tells this process's listeners that another node wrote `table` (called by the change bus). */
  changedElsewhere(table: ChangedTable): void;
  isUniqueViolation(error: unknown): boolean;
  close(): Promise<void>;
}

export function createStorage(dialect: StorageDialect): Storage {
  const listeners: ChangeListener[] = [];
  const announce = (table: ChangedTable, origin: ChangeOrigin) => {
    for (const listener of listeners) listener(table, origin);
  };
  const notify = (table: ChangedTable) => announce(table, 'local');
  // A cache refilled between a write inside a transaction and its commit would hold the old row, so every table
  // a transaction touched is announced again once it is over.
  const tracked = async <T>(run: (changed: (table: ChangedTable) => void) => Promise<T>): Promise<T> => {
    const touched = new Set<ChangedTable>();
    try {
      return await run((table) => {
        touched.add(table);
        notify(table);
      });
    } finally {
      for (const table of touched) notify(table);
    }
  };
  return {
    ...createRepositories(dialect.db, notify),
    dialect,
    transaction: (work) => tracked((changed) => dialect.transaction((trx) => work(createRepositories(trx, changed)))),
    exclusive: (lockName, work) => tracked((changed) => dialect.exclusive(lockName, (trx) => work(createRepositories(trx, changed)))),
    onChange: (listener) => listeners.push(listener),
    changedElsewhere: (table) => announce(table, 'remote'),
    isUniqueViolation: (error) => dialect.isUniqueViolation(error),
    close: () => dialect.close(),
  };
}

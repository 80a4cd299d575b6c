import type { StorageDialect } from './dialects/dialect.js';
import { createRepositories, type Repositories } from './repositories/index.js';

/** The one storage interface the rest of the server sees: repositories, transactions and exclusive sections. */
export interface Storage extends Repositories {
  readonly dialect: StorageDialect;
  /** All-or-nothing work across repositories. */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /** A transaction that also holds a database-wide named lock (several nodes on one database). */
  exclusive<T>(lockName: string, work: (repos: Repositories) => Promise<T>): Promise<T>;
  isUniqueViolation(error: unknown): boolean;
  close(): Promise<void>;
}

export function createStorage(dialect: StorageDialect): Storage {
  return {
    ...createRepositories(dialect.db),
    dialect,
    transaction: (work) => dialect.transaction((trx) => work(createRepositories(trx))),
    exclusive: (lockName, work) => dialect.exclusive(lockName, (trx) => work(createRepositories(trx))),
    isUniqueViolation: (error) => dialect.isUniqueViolation(error),
    close: () => dialect.close(),
  };
}

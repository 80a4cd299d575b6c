import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { directExecution } from '../direct-execution.js';

/** Stands for the argument at `index` while a query is compiled once. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * Kysely builds and compiles a query from its builder on every call: for a one-row lookup by key that costs about
 * as much as running the statement (bench/, the user-info and refresh paths). A hot query whose shape does not
 * depend on its arguments is compiled once here, with a placeholder per argument, and later calls only put the
 * arguments where the placeholders were. The SQL text stays the same, so the dialect's statement cache hits too.
 *
 * `build` must produce the same SQL whatever the arguments (no branching on a value, no lists of varying length);
 * the first compilation checks that every argument became a bound parameter (one may be used several times).
 */
export function reusableQuery<DB, Args extends readonly unknown[], Row>(
  db: Kysely<DB>,
  arity: Args['length'],
  build: (...args: Args) => Compilable<Row>,
): (...args: Args) => Promise<QueryResult<Row>> {
  let compiled: CompiledQuery<Row> | undefined;
  const direct = directExecution(db);
  return async (...args) => {
    if (compiled === undefined) {
      const slots = Array.from({ length: arity }, (_, index) => new Slot(index)) as unknown as Args;
      compiled = build(...slots).compile();
      const bound = compiled.parameters.filter((parameter) => parameter instanceof Slot).map((slot) => (slot as Slot).index);
      if (new Set(bound).size !== arity) {
        throw new Error(`reusableQuery: each of the ${arity} arguments must be a bound parameter of: ${compiled.sql}`);
      }
    }
    const parameters = compiled.parameters.map((parameter) => (parameter instanceof Slot ? args[parameter.index] : parameter));
    const query = { ...compiled, parameters };
    return (direct?.(query) as QueryResult<Row> | undefined) ?? db.executeQuery<Row>(query);
  };
}

import { randomString } from '../helper/random.js';
import type { KeyValueStore } from '../helper/storage.js';

/** How long a redirect may take before its transaction is forgotten (the user abandoned the login). */
const TRANSACTION_SECONDS = 30 * 60;
const key = (state: string) => `latchkey.tx.${state}`;

export interface Transaction {
  nonce?: string;
  appState?: unknown;
  /** The `max_age` the request asked for: the returned `auth_time` must honour it. */
  maxAge?: number;
}

/**
 * What a redirect must find again when it returns: one entry per `state`, holding the nonce and the
 * application's `appState`. Reading an entry removes it, so a response cannot be replayed into the page.
 */
export function transactionStore(store: KeyValueStore) {
  return {
    begin(input: { state?: string | undefined; nonce?: string | undefined; appState?: unknown; maxAge?: number | undefined; responseType: string }): { state: string; nonce?: string } {
      const state = input.state ?? randomString();
      const wantsIdToken = input.responseType.split(' ').includes('id_token');
      const nonce = input.nonce ?? (wantsIdToken ? randomString() : undefined);
      const transaction: Transaction = {
        ...(nonce !== undefined ? { nonce } : {}), ...(input.appState !== undefined ? { appState: input.appState } : {}),
        ...(input.maxAge !== undefined ? { maxAge: input.maxAge } : {}),
      };
      store.set(key(state), JSON.stringify(transaction), TRANSACTION_SECONDS);
      return nonce !== undefined ? { state, nonce } : { state };
    },

    take(state: string): Transaction | null {
      const raw = store.get(key(state));
      if (raw === null) return null;
      store.remove(key(state));
      try {
        return JSON.parse(raw) as Transaction;
      } catch {
        return null;
      }
    },
  };
}

export type TransactionStore = ReturnType<typeof transactionStore>;

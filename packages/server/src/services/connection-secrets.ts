import { open, seal } from '../crypto/secret-box.js';

/** Options that are credentials for another party: an upstream provider's client secret. */
const SECRET_OPTIONS = ['client_secret'] as const;

interface WithOptions {
  options: Record<string, unknown>;
  /** At rest only: the secret options, each sealed with the deployment secret (crypto/secret-box). */
  sealed_options?: Record<string, string>;
}

/**
 * A connection's credentials for an upstream provider must be sent to it in clear, so they cannot be hashed like
 * our own clients' secrets; at rest they are sealed (AES-256-GCM under a key derived from LATCHKEY_SECRET), so a
 * copy of the database alone does not hand them out. They leave `options` when stored and come back when a
 * connection is read for a login or for the Management API. A value stored before sealing existed is read as is
 * and sealed at the connection's next update.
 */
export function connectionSecrets(key: Buffer) {
  return {
    seal<T extends WithOptions>(data: T): T {
      const options = { ...data.options };
      const sealed: Record<string, string> = {};
      for (const name of SECRET_OPTIONS) {
        const value = options[name];
        if (typeof value !== 'string') continue;
        sealed[name] = seal(key, value);
        delete options[name];
      }
      const { sealed_options: _previous, ...rest } = data;
      return { ...rest, options, ...(Object.keys(sealed).length > 0 ? { sealed_options: sealed } : {}) } as T;
    },
    open<T extends WithOptions>(data: T): Omit<T, 'sealed_options'> {
      const { sealed_options: sealed, ...rest } = data;
      if (!sealed) return rest;
      const opened = Object.fromEntries(Object.entries(sealed).map(([name, value]) => [name, open(key, value)]));
      return { ...rest, options: { ...rest.options, ...opened } };
    },
  };
}

export type ConnectionSecrets = ReturnType<typeof connectionSecrets>;

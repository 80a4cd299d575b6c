import { open, seal } from '../../crypto/secret-box.js';
import { ServiceError } from '../errors.js';

/** A secret at rest: its value sealed (AES-256-GCM under a key derived from LATCHKEY_SECRET). */
export interface SealedSecret {
  name: string;
  value: string;
  updated_at: string;
}

/** A secret as the Management API takes it; without a value it names a secret the action has already. */
export interface SecretInput {
  name: string;
  value?: string;
}

/**
 * An action's secrets (`event.secrets`): sealed when stored, so that a copy of the database alone does not hand
 * them out, never answered (the API lists names and update times), opened only for the runs of the action.
 */
export function actionSecrets(key: Buffer) {
  return {
    /**
     * The secrets after a create or an update: `input` (when given) is the whole new list, in its order. A secret
     * with a value is set to it now; one named without a value keeps the value it had (the way a secret already
     * stored is sent back, since its value is never shown), and is refused when the action has no such secret.
     */
    merge(current: readonly SealedSecret[], input: readonly SecretInput[] | undefined, at: string): SealedSecret[] {
      if (input === undefined) return [...current];
      const seen = new Set<string>();
      return input.map((secret) => {
        if (seen.has(secret.name)) throw new ServiceError('invalid', `The secret ${secret.name} is listed twice.`, 'invalid_body');
        seen.add(secret.name);
        if (secret.value !== undefined) return { name: secret.name, value: seal(key, secret.value), updated_at: at };
        const kept = current.find((stored) => stored.name === secret.name);
        if (!kept) throw new ServiceError('invalid', `The secret ${secret.name} has no value.`, 'invalid_body');
        return kept;
      });
    },

    open(sealed: readonly SealedSecret[]): Record<string, string> {
      return Object.fromEntries(sealed.map((secret) => [secret.name, open(key, secret.value)]));
    },
  };
}

export type ActionSecrets = ReturnType<typeof actionSecrets>;

import type { Storage } from '../../storage/storage.js';
import type { TenantDocument } from '../tenant-settings.js';
import { ServiceError } from '../errors.js';

/** The platform's factor names (`/api/v2/guardian/factors`), in the order it lists them. */
export const GUARDIAN_FACTORS = ['sms', 'push-notification', 'email', 'duo', 'otp', 'webauthn-roaming', 'webauthn-platform', 'recovery-code'] as const;
export type GuardianFactorName = (typeof GUARDIAN_FACTORS)[number];

/** Factors Latchkey does not offer: they stay disabled, and enabling them is refused. */
const REFUSED: ReadonlySet<GuardianFactorName> = new Set(['push-notification', 'duo']);

/** `all-applications`: every login asks for a second factor; none: only where acr_values or an Action asks. */
export type MfaPolicy = 'all-applications';

export interface GuardianSettings {
  factors: Partial<Record<GuardianFactorName, boolean>>;
  policies: MfaPolicy[];
}

type StoredDocument = TenantDocument & { guardian?: Partial<GuardianSettings> };

/**
 * The tenant's multi-factor configuration (`/api/v2/guardian/factors`, `/api/v2/guardian/policies`), kept in the
 * tenant's document and read through the configuration cache (`read`), like the attack-protection settings.
 * Every factor starts disabled and the policy empty, as on a new tenant of the platform.
 */
export function guardianSettings(deps: { storage: Storage; tenantId: string; read: () => Promise<TenantDocument | undefined> }) {
  const stored = async (): Promise<Partial<GuardianSettings>> => ((await deps.read()) as StoredDocument | undefined)?.guardian ?? {};

  async function change(apply: (current: GuardianSettings) => GuardianSettings): Promise<GuardianSettings> {
    return deps.storage.exclusive(`latchkey:tenant-settings:${deps.tenantId}`, async (repos) => {
      const tenant = await repos.tenants.get<StoredDocument>(deps.tenantId);
      if (!tenant) throw new Error(`tenant ${deps.tenantId} is missing: bootstrap did not run`);
      const current: GuardianSettings = { factors: { ...(tenant.settings.guardian?.factors ?? {}) }, policies: [...(tenant.settings.guardian?.policies ?? [])] };
      const next = apply(current);
      await repos.tenants.updateSettings(deps.tenantId, { ...tenant.settings, guardian: next });
      return next;
    });
  }

  return {
    async factors(): Promise<{ name: GuardianFactorName; enabled: boolean; trial_expired: boolean }[]> {
      const factors = (await stored()).factors ?? {};
      return GUARDIAN_FACTORS.map((name) => ({ name, enabled: factors[name] === true, trial_expired: false }));
    },

    async enabled(name: GuardianFactorName): Promise<boolean> {
      return (await stored()).factors?.[name] === true;
    },

    /** Enables or disables a factor; `push-notification` and `duo` can only be disabled. */
    async setFactor(name: GuardianFactorName, enabled: boolean): Promise<{ enabled: boolean }> {
      if (enabled && REFUSED.has(name)) {
        throw new ServiceError('invalid', `The factor '${name}' is not supported by Latchkey: use otp, sms, email, webauthn-roaming, webauthn-platform or recovery-code.`, 'invalid_body');
      }
      await change((current) => ({ ...current, factors: { ...current.factors, [name]: enabled } }));
      return { enabled };
    },

    async policies(): Promise<MfaPolicy[]> {
      return [...((await stored()).policies ?? [])];
    },

    async setPolicies(policies: readonly string[]): Promise<MfaPolicy[]> {
      const unsupported = policies.find((policy) => policy !== 'all-applications');
      if (unsupported !== undefined) throw new ServiceError('invalid', `The policy '${unsupported}' is not supported: use ["all-applications"] or [].`, 'invalid_body');
      const next: MfaPolicy[] = policies.length > 0 ? ['all-applications'] : [];
      await change((current) => ({ ...current, policies: next }));
      return next;
    },
  };
}

export type GuardianSettingsService = ReturnType<typeof guardianSettings>;

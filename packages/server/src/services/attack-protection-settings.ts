import type { Storage } from '../storage/storage.js';
import type { TenantDocument } from './tenant-settings.js';

/** The reference platform's attack-protection settings, as `/api/v2/attack-protection/*` shows them. */
export interface BruteForceProtection {
  enabled: boolean;
  /** `block` refuses the account from the address; `user_notification` e-mails the user an unblock link. */
  shields: ('block' | 'user_notification')[];
  /** Addresses (IPs) never counted. */
  allowlist: string[];
  mode: 'count_per_identifier_and_ip' | 'count_per_identifier';
  /** Consecutive failures that block; 1-100. */
  max_attempts: number;
}

export interface ThrottleStage {
  /** Failures allowed before the address is throttled. */
  max_attempts: number;
  /** Milliseconds to regain one attempt. */
  rate: number;
}

export interface SuspiciousIpThrottling {
  enabled: boolean;
  shields: ('block' | 'admin_notification')[];
  allowlist: string[];
  stage: { 'pre-login': ThrottleStage; 'pre-user-registration': ThrottleStage };
}

export interface BreachedPasswordDetection {
  enabled: boolean;
  /** `block` refuses logins and signups with a breached password; `user_notification` e-mails the user. */
  shields: ('block' | 'user_notification' | 'admin_notification')[];
  admin_notification_frequency: ('immediately' | 'daily' | 'weekly' | 'monthly')[];
  method: 'standard' | 'enhanced';
}

export interface AttackProtection {
  'brute-force-protection': BruteForceProtection;
  'suspicious-ip-throttling': SuspiciousIpThrottling;
  'breached-password-detection': BreachedPasswordDetection;
}

export type AttackProtectionKind = keyof AttackProtection;

/** The platform's defaults: brute-force and IP throttling on, breached-password detection off. */
export const DEFAULT_ATTACK_PROTECTION: AttackProtection = {
  'brute-force-protection': { enabled: true, shields: ['block', 'user_notification'], allowlist: [], mode: 'count_per_identifier_and_ip', max_attempts: 10 },
  'suspicious-ip-throttling': {
    enabled: true,
    shields: ['block'],
    allowlist: [],
    stage: { 'pre-login': { max_attempts: 100, rate: 864_000 }, 'pre-user-registration': { max_attempts: 50, rate: 1_200 } },
  },
  'breached-password-detection': { enabled: false, shields: ['block'], admin_notification_frequency: [], method: 'standard' },
};

type StoredDocument = TenantDocument & { attack_protection?: Partial<AttackProtection> };

/** The settings of one tenant: stored in its document, read through `read` (the configuration cache). */
export function attackProtectionSettings(deps: { storage: Storage; tenantId: string; read: () => Promise<TenantDocument | undefined> }) {
  return {
    async get<K extends AttackProtectionKind>(kind: K): Promise<AttackProtection[K]> {
      const stored = ((await deps.read()) as StoredDocument | undefined)?.attack_protection?.[kind];
      return { ...DEFAULT_ATTACK_PROTECTION[kind], ...(stored ?? {}) } as AttackProtection[K];
    },
    /** Top-level fields replace (`stage` merges per stage); under the tenant's lock, all or nothing. */
    async update<K extends AttackProtectionKind>(kind: K, patch: Partial<AttackProtection[K]>): Promise<AttackProtection[K]> {
      return deps.storage.exclusive(`latchkey:tenant-settings:${deps.tenantId}`, async (repos) => {
        const tenant = await repos.tenants.get<StoredDocument>(deps.tenantId);
        if (!tenant) throw new Error(`tenant ${deps.tenantId} is missing: bootstrap did not run`);
        const document = tenant.settings;
        const current = { ...DEFAULT_ATTACK_PROTECTION[kind], ...(document.attack_protection?.[kind] ?? {}) } as AttackProtection[K];
        const next = { ...current, ...patch } as AttackProtection[K];
        if ('stage' in current && 'stage' in patch && patch.stage) {
          (next as SuspiciousIpThrottling).stage = { ...(current as SuspiciousIpThrottling).stage, ...(patch as Partial<SuspiciousIpThrottling>).stage };
        }
        await repos.tenants.updateSettings(deps.tenantId, { ...document, attack_protection: { ...(document.attack_protection ?? {}), [kind]: next } });
        return next;
      });
    },
  };
}

export type AttackProtectionSettings = ReturnType<typeof attackProtectionSettings>;

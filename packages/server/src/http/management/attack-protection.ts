import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import type { AttackProtectionKind } from '../../services/attack-protection-settings.js';
import { ERROR_RESPONSES } from './schemas.js';

const Addresses = Type.Array(Type.String({ maxLength: 64, description: 'An IP address.' }), { maxItems: 100 });
const Stage = Type.Object(
  { max_attempts: Type.Integer({ minimum: 1, maximum: 10_000 }), rate: Type.Integer({ minimum: 1, maximum: 864_000_000, description: 'Milliseconds to regain one attempt.' }) },
  { additionalProperties: false },
);
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

const SCHEMAS: Record<AttackProtectionKind, Record<string, TSchema>> = {
  'brute-force-protection': {
    enabled: Type.Boolean(),
    shields: Type.Array(enumOf(['block', 'user_notification'] as const), { uniqueItems: true }),
    allowlist: Addresses,
    mode: enumOf(['count_per_identifier_and_ip', 'count_per_identifier'] as const),
    max_attempts: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  'suspicious-ip-throttling': {
    enabled: Type.Boolean(),
    shields: Type.Array(enumOf(['block', 'admin_notification'] as const), { uniqueItems: true }),
    allowlist: Addresses,
    stage: Type.Object({ 'pre-login': Type.Optional(Stage), 'pre-user-registration': Type.Optional(Stage) }, { additionalProperties: false }),
  },
  'breached-password-detection': {
    enabled: Type.Boolean(),
    shields: Type.Array(enumOf(['block', 'user_notification', 'admin_notification'] as const), { uniqueItems: true }),
    admin_notification_frequency: Type.Array(enumOf(['immediately', 'daily', 'weekly', 'monthly'] as const), { uniqueItems: true }),
    method: enumOf(['standard', 'enhanced'] as const),
  },
};

const optional = (fields: Record<string, TSchema>) => Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, Type.Optional(schema)]));

/** `GET/PATCH /api/v2/attack-protection/{brute-force-protection,suspicious-ip-throttling,breached-password-detection}`. */
export function attackProtectionRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['attack-protection'];
    for (const kind of Object.keys(SCHEMAS) as AttackProtectionKind[]) {
      const fields = SCHEMAS[kind];
      const Shown = Type.Object(optional(fields), { additionalProperties: false });
      app.get(
        `/attack-protection/${kind}`,
        { config: { scopes: ['read:attack_protection'] }, schema: { tags, summary: `Get the ${kind.replaceAll('-', ' ')} settings`, response: { 200: Shown, ...ERROR_RESPONSES } } },
        async () => ({ ...(await registry.attackProtection.get(kind)) }) as Record<string, unknown>,
      );
      app.patch(
        `/attack-protection/${kind}`,
        {
          config: { scopes: ['update:attack_protection'] },
          schema: { tags, summary: `Update the ${kind.replaceAll('-', ' ')} settings`, body: Type.Object(optional(fields), { additionalProperties: false, minProperties: 1 }), response: { 200: Shown, ...ERROR_RESPONSES } },
        },
        async (request) => ({ ...(await registry.attackProtection.update(kind, request.body as never)) }) as Record<string, unknown>,
      );
    }
  };
}

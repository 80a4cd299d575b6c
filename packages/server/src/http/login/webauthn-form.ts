import type { Json } from './render/model.js';

/**
 * A WebAuthn credential as a form posted it (`response` on the MFA screens, `passkey` on login-id and
 * passkey-enrollment): JSON, in the SDK's shape or in the browser's own `toJSON()` shape. The SDK leaves
 * `clientExtensionResults` out, which the verifier expects; undefined when the field holds no object.
 */
export function credentialOf(posted: string | undefined): Record<string, Json> | undefined {
  try {
    const value: unknown = JSON.parse(posted ?? '');
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return { clientExtensionResults: {}, type: 'public-key', ...(value as Record<string, Json>) };
  } catch {
    return undefined;
  }
}

import type { TenantSettings } from '../tenant-settings.js';

/** Why a tenant may not use advanced customizations (rendering configurations of the hosted screens). */
export type AdvancedCustomizationsRefusal = 'payment_required' | 'feature_disabled';

/**
 * The one gate of advanced customizations, read by the Management API (which answers the refusal: 402, then 403)
 * and by the hosted pages (which then render without the stored configuration). A free subscription is checked
 * first, so a free tenant hears about the subscription even when its flag is also off.
 */
export function advancedCustomizationsRefusal(settings: TenantSettings): AdvancedCustomizationsRefusal | undefined {
  if (settings.subscription === 'free') return 'payment_required';
  if (settings.flags.enable_advanced_customizations === false) return 'feature_disabled';
  return undefined;
}

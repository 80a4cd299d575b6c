import type { PageProps } from '../app.js';
import { SectionNav } from '../components.js';
import { BrandingPage } from './branding.js';
import { CustomTextsPage } from './custom-texts.js';
import { RenderingDetail } from './rendering-detail.js';
import { RenderingList } from './rendering.js';
import { SigningKeys } from './signing-keys.js';
import { TenantSettingsPage } from './tenant-settings.js';

const BRANDING_SECTIONS = [
  { href: '/admin/branding', label: 'Universal login' },
  { href: '/admin/branding/texts', label: 'Custom texts' },
  { href: '/admin/branding/rendering', label: 'Rendering' },
];

const SETTINGS_SECTIONS = [
  { href: '/admin/settings', label: 'Tenant settings' },
  { href: '/admin/settings/signing-keys', label: 'Signing keys' },
];

/** `/admin/branding/<section>[/<prompt>/<screen>]`, each part decoded. */
const partsOf = (path: string, area: string) =>
  path
    .slice(`/admin/${area}`.length)
    .split('/')
    .filter(Boolean)
    .map((part) => decodeURIComponent(part));

export function BrandingArea({ path, ...props }: PageProps & { path: string }) {
  const [section, prompt, screen] = partsOf(path, 'branding');
  const current = `/admin/branding${section ? `/${section}` : ''}`;
  return (
    <section>
      <SectionNav label="Branding sections" current={current} links={BRANDING_SECTIONS} />
      {section === 'texts' ? (
        <CustomTextsPage {...props} />
      ) : section === 'rendering' && prompt && screen ? (
        <RenderingDetail {...props} prompt={prompt} screen={screen} />
      ) : section === 'rendering' ? (
        <RenderingList {...props} />
      ) : (
        <BrandingPage {...props} />
      )}
    </section>
  );
}

export function SettingsArea({ path, ...props }: PageProps & { path: string }) {
  const [section] = partsOf(path, 'settings');
  return (
    <section>
      <SectionNav label="Settings sections" current={section === 'signing-keys' ? '/admin/settings/signing-keys' : '/admin/settings'} links={SETTINGS_SECTIONS} />
      {section === 'signing-keys' ? <SigningKeys {...props} /> : <TenantSettingsPage {...props} />}
    </section>
  );
}

import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ErrorNote } from '../components.js';
import type { Organization } from '../types.js';

const MAX_METADATA = 25;

interface Draft {
  displayName: string;
  logoUrl: string;
  customColors: boolean;
  primary: string;
  background: string;
  metadata: { key: string; value: string }[];
}

const draftOf = (organization: Organization): Draft => ({
  displayName: organization.display_name ?? '',
  logoUrl: organization.branding?.logo_url ?? '',
  customColors: organization.branding?.colors !== undefined,
  primary: organization.branding?.colors?.primary ?? '#0b5cad',
  background: organization.branding?.colors?.page_background ?? '#ffffff',
  metadata: Object.entries(organization.metadata ?? {}).map(([key, value]) => ({ key, value })),
});

/** The body of a PATCH: an empty branding or metadata clears it (null), as the API takes it. */
function changesOf(draft: Draft) {
  const branding = {
    ...(draft.logoUrl.trim() ? { logo_url: draft.logoUrl.trim() } : {}),
    ...(draft.customColors ? { colors: { primary: draft.primary, page_background: draft.background } } : {}),
  };
  const metadata = draft.metadata.filter((row) => row.key.trim() !== '');
  return {
    ...(draft.displayName.trim() ? { display_name: draft.displayName.trim() } : {}),
    branding: Object.keys(branding).length > 0 ? branding : null,
    metadata: metadata.length > 0 ? Object.fromEntries(metadata.map((row) => [row.key.trim(), row.value])) : null,
  };
}

/** Display name, branding (logo and colours) and metadata of an organization. */
export function OrganizationSettings({ api, organization, onSaved }: { api: Api; organization: Organization; onSaved: (saved: Organization) => void }) {
  const [draft, setDraft] = useState(() => draftOf(organization));
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const setRow = (index: number, patch: Partial<Draft['metadata'][number]>) => set({ metadata: draft.metadata.map((row, at) => (at === index ? { ...row, ...patch } : row)) });

  async function save(event: Event) {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      const updated = await api<Organization>('PATCH', `/organizations/${encodeURIComponent(organization.id)}`, changesOf(draft));
      setDraft(draftOf(updated));
      setSaved(true);
      onSaved(updated);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="card" onSubmit={save} aria-labelledby="organization-settings-title">
      <h2 id="organization-settings-title">Settings</h2>
      <label for="organization-display-name">Display name</label>
      <input id="organization-display-name" maxLength={255} value={draft.displayName} onInput={(event) => set({ displayName: event.currentTarget.value })} />
      <fieldset>
        <legend>Branding of the login pages</legend>
        <label for="organization-logo">Logo URL</label>
        <input id="organization-logo" type="url" aria-describedby="organization-logo-hint" value={draft.logoUrl} onInput={(event) => set({ logoUrl: event.currentTarget.value })} />
        <small id="organization-logo-hint">An https address of an image; empty for none.</small>
        {draft.logoUrl.startsWith('https://') ? <img class="logo-preview" src={draft.logoUrl} alt="Logo preview" /> : null}
        <label class="check">
          <input type="checkbox" checked={draft.customColors} onChange={(event) => set({ customColors: event.currentTarget.checked })} />
          Use the organization’s own colours
        </label>
        {draft.customColors ? (
          <div class="colors">
            <div>
              <label for="organization-primary">Primary colour</label>
              <input id="organization-primary" type="color" value={draft.primary} onInput={(event) => set({ primary: event.currentTarget.value })} />
            </div>
            <div>
              <label for="organization-background">Page background colour</label>
              <input id="organization-background" type="color" value={draft.background} onInput={(event) => set({ background: event.currentTarget.value })} />
            </div>
          </div>
        ) : null}
      </fieldset>
      <fieldset>
        <legend>Metadata</legend>
        <small>Up to {MAX_METADATA} text pairs that applications and Actions read with the organization.</small>
        {draft.metadata.map((row, index) => (
          <div class="row metadata-row" key={index}>
            <label class="visually-hidden" for={`metadata-key-${index}`}>
              Key {index + 1}
            </label>
            <input id={`metadata-key-${index}`} placeholder="key" maxLength={255} value={row.key} onInput={(event) => setRow(index, { key: event.currentTarget.value })} />
            <label class="visually-hidden" for={`metadata-value-${index}`}>
              Value {index + 1}
            </label>
            <input id={`metadata-value-${index}`} placeholder="value" maxLength={255} value={row.value} onInput={(event) => setRow(index, { value: event.currentTarget.value })} />
            <button type="button" onClick={() => set({ metadata: draft.metadata.filter((_, at) => at !== index) })}>
              Remove<span class="visually-hidden"> pair {index + 1}</span>
            </button>
          </div>
        ))}
        <button type="button" disabled={draft.metadata.length >= MAX_METADATA} onClick={() => set({ metadata: [...draft.metadata, { key: '', value: '' }] })}>
          Add a pair
        </button>
      </fieldset>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" class="primary">
          Save changes
        </button>
        {saved ? <span role="status">Saved.</span> : null}
      </div>
    </form>
  );
}

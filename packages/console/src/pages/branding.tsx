import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote } from '../components.js';
import type { Branding } from '../types.js';
import { PreviewCard, savedMessage } from './preview-card.js';

interface Draft {
  primary: string;
  pageBackground: string;
  logoUrl: string;
  faviconUrl: string;
  fontUrl: string;
}

const draftOf = (branding: Branding): Draft => ({
  primary: branding.colors?.primary ?? '',
  pageBackground: branding.colors?.page_background ?? '',
  logoUrl: branding.logo_url ?? '',
  faviconUrl: branding.favicon_url ?? '',
  fontUrl: branding.font?.url ?? '',
});

/** An empty field removes the setting (`null`), so the hosted pages fall back to their own. */
const orNull = (value: string) => value.trim() || null;

/** `#rgb` as the colour picker needs it (`#rrggbb`); while no colour is set, the pages' own colour. */
const pickerValue = (hex: string, fallback: string) =>
  /^#[0-9a-f]{3}$/i.test(hex) ? `#${[...hex.slice(1)].map((digit) => digit + digit).join('')}` : /^#[0-9a-f]{6}$/i.test(hex) ? hex : fallback;

/** The hosted pages' own colours, shown until the tenant sets its own. */
const DEFAULT_PRIMARY = '#1d4ed8';
const DEFAULT_BACKGROUND = '#f3f4f6';

function ColourField(props: { id: string; label: string; hint: string; fallback: string; value: string; onInput: (value: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <div class="field-row">
        <input id={props.id} value={props.value} placeholder={props.fallback} aria-describedby={`${props.id}-hint`} onInput={(event) => props.onInput(event.currentTarget.value)} />
        <input type="color" aria-label={`${props.label}: colour picker`} value={pickerValue(props.value, props.fallback)} onInput={(event) => props.onInput(event.currentTarget.value)} />
      </div>
      <small id={`${props.id}-hint`}>{props.hint}</small>
    </>
  );
}

function UrlField(props: { id: string; label: string; hint: string; value: string; onInput: (value: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input id={props.id} type="url" placeholder="https://" value={props.value} aria-describedby={`${props.id}-hint`} onInput={(event) => props.onInput(event.currentTarget.value)} />
      <small id={`${props.id}-hint`}>{props.hint}</small>
    </>
  );
}

/** `GET/PATCH /api/v2/branding`: the colours, logo, favicon and font of the hosted pages. */
export function BrandingPage(props: PageProps) {
  const { api } = props;
  const [draft, setDraft] = useState<Draft | undefined>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();

  useEffect(() => {
    api<Branding>('GET', '/branding').then((loaded) => setDraft(draftOf(loaded)), setError);
  }, [api]);

  async function save(event: Event) {
    event.preventDefault();
    if (!draft) return;
    setError(undefined);
    setSaved(undefined);
    try {
      const updated = await api<Branding>('PATCH', '/branding', {
        colors: { primary: orNull(draft.primary), page_background: orNull(draft.pageBackground) },
        logo_url: orNull(draft.logoUrl),
        favicon_url: orNull(draft.faviconUrl),
        font: { url: orNull(draft.fontUrl) },
      });
      setDraft(draftOf(updated));
      setSaved(savedMessage());
    } catch (caught) {
      setError(caught);
    }
  }

  const set = (patch: Partial<Draft>) => draft && setDraft({ ...draft, ...patch });
  return (
    <>
      <h1 tabIndex={-1}>Universal login</h1>
      <p>The look of every hosted page: login, sign-up, password reset, multi-factor. An application's own logo goes before the tenant's.</p>
      {draft ? (
        <form class="card" onSubmit={save} aria-labelledby="branding-title">
          <h2 id="branding-title">Branding</h2>
          <ColourField
            id="primary"
            label="Primary colour"
            hint="The buttons and links of the pages (#rgb or #rrggbb); empty for Latchkey's blue."
            fallback={DEFAULT_PRIMARY}
            value={draft.primary} onInput={(primary) => set({ primary })} />
          <ColourField
            id="page-background"
            label="Page background colour"
            hint="Behind the page's box, in light and dark mode alike; empty for the default grey."
            fallback={DEFAULT_BACKGROUND}
            value={draft.pageBackground}
            onInput={(pageBackground) => set({ pageBackground })}
          />
          <UrlField id="logo-url" label="Logo URL" hint="An HTTPS address of an image shown above the form." value={draft.logoUrl} onInput={(logoUrl) => set({ logoUrl })} />
          <UrlField id="favicon-url" label="Favicon URL" hint="An HTTPS address of the icon browsers show in the tab." value={draft.faviconUrl} onInput={(faviconUrl) => set({ faviconUrl })} />
          <UrlField id="font-url" label="Font URL" hint="An HTTPS address of a font file, for advanced pages that load it (standard pages keep the system font)." value={draft.fontUrl} onInput={(fontUrl) => set({ fontUrl })} />
          <ErrorNote error={error} />
          <div class="actions">
            <button type="submit" class="primary">
              Save branding
            </button>
            {saved ? <span role="status">{saved}</span> : null}
          </div>
        </form>
      ) : error ? (
        <ErrorNote error={error} />
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
      <PreviewCard {...props} />
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { HOSTED_LOCALES } from '../catalogue.js';
import { ErrorNote, lines } from '../components.js';
import type { ListPage, TenantSettings } from '../types.js';
import { savedMessage } from './preview-card.js';

/** Flags the server reads, in words; any other flag of the tenant is shown under its name. */
const KNOWN_FLAGS: Record<string, string> = {
  enable_advanced_customizations: 'Advanced customizations: rendering configurations (advanced mode, head tags) apply to the hosted pages',
};

interface Draft {
  friendly_name: string;
  picture_url: string;
  support_email: string;
  support_url: string;
  session_lifetime: string;
  idle_session_lifetime: string;
  default_audience: string;
  default_directory: string;
  /** In order, the tenant's default first. */
  enabled_locales: string[];
  allowed_logout_urls: string;
  flags: Record<string, boolean>;
}

const draftOf = (settings: TenantSettings): Draft => ({
  friendly_name: settings.friendly_name ?? '',
  picture_url: settings.picture_url ?? '',
  support_email: settings.support_email ?? '',
  support_url: settings.support_url ?? '',
  session_lifetime: settings.session_lifetime === undefined ? '' : String(settings.session_lifetime),
  idle_session_lifetime: settings.idle_session_lifetime === undefined ? '' : String(settings.idle_session_lifetime),
  default_audience: settings.default_audience ?? '',
  default_directory: settings.default_directory ?? '',
  enabled_locales: settings.enabled_locales ?? ['en'],
  allowed_logout_urls: (settings.allowed_logout_urls ?? []).join('\n'),
  flags: settings.flags ?? {},
});

/** The API's value of each field, from the form. */
function valuesOf(draft: Draft): Record<keyof Draft, unknown> {
  const hours = (text: string) => (text.trim() === '' ? undefined : Number(text));
  return { ...draft, session_lifetime: hours(draft.session_lifetime), idle_session_lifetime: hours(draft.idle_session_lifetime), allowed_logout_urls: lines(draft.allowed_logout_urls) };
}

/** Only what changed is sent: a field the administrator did not touch keeps whatever the API holds. */
function changes(before: Draft, after: Draft): Record<string, unknown> {
  const [was, now] = [valuesOf(before), valuesOf(after)];
  return Object.fromEntries(Object.entries(now).filter(([field, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(was[field as keyof Draft])));
}

function TextField(props: { id: keyof Draft; label: string; hint?: string; type?: 'text' | 'url' | 'email' | 'number'; list?: string; value: string; onInput: (value: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={props.type ?? 'text'}
        list={props.list}
        step={props.type === 'number' ? 'any' : undefined}
        value={props.value}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      {props.hint ? <small id={`${props.id}-hint`}>{props.hint}</small> : null}
    </>
  );
}

/** `GET/PATCH /api/v2/tenants/settings`. */
export function TenantSettingsPage({ api }: PageProps) {
  const [loaded, setLoaded] = useState<Draft | undefined>();
  const [draft, setDraft] = useState<Draft | undefined>();
  const [suggestions, setSuggestions] = useState<{ audiences: string[]; directories: string[] }>({ audiences: [], directories: [] });
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();

  useEffect(() => {
    api<TenantSettings>('GET', '/tenants/settings').then((settings) => {
      setLoaded(draftOf(settings));
      setDraft(draftOf(settings));
    }, setError);
    // Suggestions only (one page of each): any identifier or connection name may be typed.
    void Promise.all([
      api<ListPage<'resource_servers', { identifier: string }>>('GET', '/resource-servers?include_totals=true&per_page=50&fields=identifier'),
      api<ListPage<'connections', { name: string }>>('GET', '/connections?include_totals=true&per_page=50&strategy=auth0&fields=name'),
    ]).then(
      ([apis, connections]) => setSuggestions({ audiences: apis.resource_servers.map((entry) => entry.identifier), directories: connections.connections.map((entry) => entry.name) }),
      () => undefined,
    );
  }, [api]);

  async function save(event: Event) {
    event.preventDefault();
    if (!draft || !loaded) return;
    setError(undefined);
    setSaved(undefined);
    try {
      const settings = await api<TenantSettings>('PATCH', '/tenants/settings', changes(loaded, draft));
      setLoaded(draftOf(settings));
      setDraft(draftOf(settings));
      setSaved(savedMessage());
    } catch (caught) {
      setError(caught);
    }
  }

  if (!draft) return error ? <ErrorNote error={error} /> : <p aria-busy="true">Loading…</p>;
  const set = (change: Partial<Draft>) => {
    setSaved(undefined);
    setDraft({ ...draft, ...change });
  };
  const toggleLocale = (tag: string, on: boolean) => set({ enabled_locales: on ? [...draft.enabled_locales, tag] : draft.enabled_locales.filter((locale) => locale !== tag) });
  const defaultLocale = draft.enabled_locales[0] ?? '';
  // Languages the tenant holds that Latchkey ships no texts for: shown, so that they can be taken off.
  const others = (loaded?.enabled_locales ?? [])
    .filter((tag) => !HOSTED_LOCALES.some((locale) => locale.tag === tag))
    .map((tag) => ({ tag, label: `${tag} (Latchkey ships no texts in it: its pages fall back to another language)` }));
  return (
    <form onSubmit={save} aria-labelledby="tenant-title">
      <h1 tabIndex={-1} id="tenant-title">
        Tenant settings
      </h1>
      <div class="card">
        <h2>General</h2>
        <TextField id="friendly_name" label="Friendly name" hint="Shown to users on the hosted pages (“Log in with your … account”)." value={draft.friendly_name} onInput={(value) => set({ friendly_name: value })} />
        <TextField id="picture_url" label="Logo URL" type="url" hint="The tenant's logo, shown when neither the application nor the branding has one." value={draft.picture_url} onInput={(value) => set({ picture_url: value })} />
        <TextField id="support_email" label="Support e-mail" type="email" value={draft.support_email} onInput={(value) => set({ support_email: value })} />
        <TextField id="support_url" label="Support URL" type="url" value={draft.support_url} onInput={(value) => set({ support_url: value })} />
      </div>
      <div class="card">
        <h2>Sessions</h2>
        <TextField id="idle_session_lifetime" label="Idle session lifetime (hours)" type="number" hint="A login session without use ends after this long (default 72). New sessions only." value={draft.idle_session_lifetime} onInput={(value) => set({ idle_session_lifetime: value })} />
        <TextField id="session_lifetime" label="Maximum session lifetime (hours)" type="number" hint="A login session ends after this long whatever its use (default 168)." value={draft.session_lifetime} onInput={(value) => set({ session_lifetime: value })} />
      </div>
      <div class="card">
        <h2>API authorization</h2>
        <TextField id="default_audience" label="Default audience" list="audiences" hint="The API tokens are issued for when a request names none; empty for none." value={draft.default_audience} onInput={(value) => set({ default_audience: value })} />
        <TextField id="default_directory" label="Default directory" list="directories" hint="The database connection the password grant signs users in against; empty for none." value={draft.default_directory} onInput={(value) => set({ default_directory: value })} />
        <datalist id="audiences">{suggestions.audiences.map((value) => <option key={value} value={value} />)}</datalist>
        <datalist id="directories">{suggestions.directories.map((value) => <option key={value} value={value} />)}</datalist>
        <label for="allowed_logout_urls">Allowed logout URLs</label>
        <textarea id="allowed_logout_urls" rows={3} aria-describedby="allowed_logout_urls-hint" value={draft.allowed_logout_urls} onInput={(event) => set({ allowed_logout_urls: event.currentTarget.value })} />
        <small id="allowed_logout_urls-hint">One URL per line: where any application may send users after they log out.</small>
      </div>
      <div class="card">
        <h2>Languages</h2>
        <fieldset>
          <legend>Languages of the hosted pages</legend>
          {[...HOSTED_LOCALES.map((locale) => ({ tag: locale.tag, label: `${locale.name} (${locale.tag})` })), ...others].map((locale) => (
            <label key={locale.tag} class="check">
              <input type="checkbox" checked={draft.enabled_locales.includes(locale.tag)} onChange={(event) => toggleLocale(locale.tag, event.currentTarget.checked)} />
              {locale.label}
            </label>
          ))}
        </fieldset>
        <label for="default-locale">Default language</label>
        <select
          id="default-locale"
          aria-describedby="default-locale-hint"
          value={defaultLocale}
          onChange={(event) => set({ enabled_locales: [event.currentTarget.value, ...draft.enabled_locales.filter((locale) => locale !== event.currentTarget.value)] })}
        >
          {draft.enabled_locales.map((locale) => (
            <option key={locale}>{locale}</option>
          ))}
        </select>
        <small id="default-locale-hint">Pages are shown in the language the application asks for when it is enabled, else in this one.</small>
      </div>
      {Object.keys(draft.flags).length > 0 ? (
        <div class="card">
          <h2>Features</h2>
          {Object.entries(draft.flags).map(([flag, on]) => (
            <label key={flag} class="check">
              <input type="checkbox" checked={on} onChange={(event) => set({ flags: { ...draft.flags, [flag]: event.currentTarget.checked } })} />
              {KNOWN_FLAGS[flag] ?? flag}
            </label>
          ))}
        </div>
      ) : null}
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" class="primary">
          Save settings
        </button>
        {saved ? <span role="status">{saved}</span> : null}
      </div>
    </form>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ConfirmDialog, ErrorNote, lines } from '../components.js';
import { navigate } from '../router.js';
import { APP_TYPES, GRANT_TYPES, type Client } from '../types.js';
import { ApiAccess } from './application/api-access.js';
import { EnabledConnections } from './application/connections.js';
import { Credentials } from './application/credentials.js';
import { OrganizationSettings } from './application/organizations.js';
import { SamlAddon } from './application/saml.js';
import { TokenSettings } from './application/tokens.js';

export { freshSecrets } from './application/credentials.js';

interface Draft {
  name: string;
  callbacks: string;
  webOrigins: string;
  logoutUrls: string;
  grantTypes: string[];
}

const draftOf = (client: Client): Draft => ({
  name: client.name,
  callbacks: (client.callbacks ?? []).join('\n'),
  webOrigins: (client.web_origins ?? []).join('\n'),
  logoutUrls: (client.allowed_logout_urls ?? []).join('\n'),
  grantTypes: client.grant_types ?? [],
});

function UrlList(props: { id: string; label: string; hint: string; value: string; onInput: (value: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <textarea id={props.id} rows={3} aria-describedby={`${props.id}-hint`} value={props.value} onInput={(event) => props.onInput(event.currentTarget.value)} />
      <small id={`${props.id}-hint`}>{props.hint}</small>
    </>
  );
}

/** The cards of the page, in order, for the table of contents; some apply to applications that sign users in only. */
function sectionsOf(client: Client): { id: string; label: string }[] {
  const signsUsersIn = client.app_type !== 'non_interactive';
  const confidential = client.token_endpoint_auth_method !== 'none';
  return [
    { id: 'credentials', label: 'Credentials' },
    { id: 'settings', label: 'Settings' },
    ...(confidential ? [{ id: 'api-access', label: 'API access' }] : []),
    ...(signsUsersIn
      ? [
          { id: 'tokens', label: 'Tokens' },
          { id: 'connections', label: 'Connections' },
          { id: 'organizations', label: 'Organizations' },
          { id: 'saml', label: 'SAML add-on' },
        ]
      : []),
    { id: 'delete', label: 'Delete' },
  ];
}

export function ApplicationDetail({ api, id, settings }: PageProps & { id: string }) {
  const [client, setClient] = useState<Client | undefined>();
  const [draft, setDraft] = useState<Draft | undefined>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const path = `/clients/${encodeURIComponent(id)}`;

  useEffect(() => {
    api<Client>('GET', path).then((loaded) => {
      setClient(loaded);
      setDraft(draftOf(loaded));
    }, setError);
  }, [api, path]);

  async function save(event: Event) {
    event.preventDefault();
    if (!draft) return;
    setError(undefined);
    setSaved(false);
    try {
      const updated = await api<Client>('PATCH', path, {
        name: draft.name.trim(),
        callbacks: lines(draft.callbacks),
        web_origins: lines(draft.webOrigins),
        allowed_logout_urls: lines(draft.logoutUrls),
        grant_types: draft.grantTypes,
      });
      setClient(updated);
      setDraft(draftOf(updated));
      setSaved(true);
    } catch (caught) {
      setError(caught);
    }
  }

  async function remove() {
    setConfirming(false);
    try {
      await api('DELETE', path);
      navigate('/admin/applications');
    } catch (caught) {
      setError(caught);
    }
  }

  const set = (patch: Partial<Draft>) => draft && setDraft({ ...draft, ...patch });
  const sections = new Set(client ? sectionsOf(client).map((section) => section.id) : []);
  return (
    <section>
      <p>
        <a href="/admin/applications">← Applications</a>
      </p>
      <h1 tabIndex={-1}>{client?.name ?? 'Application'}</h1>
      {client ? <p class="muted">{APP_TYPES.find((entry) => entry.value === client.app_type)?.label}</p> : null}
      <ErrorNote error={error} />
      {client && draft ? (
        <>
          <nav aria-label="On this page" class="toc">
            <ul>
              {sectionsOf(client).map((section) => (
                <li key={section.id}>
                  <a href={`#${section.id}`}>{section.label}</a>
                </li>
              ))}
            </ul>
          </nav>
          <Credentials client={client} api={api} onSaved={setClient} />
          <form class="card" id="settings" onSubmit={save} aria-labelledby="settings-title">
            <h2 id="settings-title">Settings</h2>
            <label for="name">Name</label>
            <input id="name" required value={draft.name} onInput={(event) => set({ name: event.currentTarget.value })} />
            <UrlList id="callbacks" label="Allowed callback URLs" hint="One URL per line: where Latchkey may send users back after they sign in." value={draft.callbacks} onInput={(callbacks) => set({ callbacks })} />
            <UrlList id="web-origins" label="Allowed web origins" hint="One origin per line (scheme, host and port) for silent authentication and cross-origin calls." value={draft.webOrigins} onInput={(webOrigins) => set({ webOrigins })} />
            <UrlList id="logout-urls" label="Allowed logout URLs" hint="One URL per line: where users may go after they sign out." value={draft.logoutUrls} onInput={(logoutUrls) => set({ logoutUrls })} />
            <fieldset>
              <legend>Grant types</legend>
              {GRANT_TYPES.map((grant) => (
                <label key={grant.value} class="check">
                  <input
                    type="checkbox"
                    checked={draft.grantTypes.includes(grant.value)}
                    onChange={(event) =>
                      set({ grantTypes: event.currentTarget.checked ? [...draft.grantTypes, grant.value] : draft.grantTypes.filter((value) => value !== grant.value) })
                    }
                  />
                  {grant.label}
                </label>
              ))}
            </fieldset>
            <div class="actions">
              <button type="submit" class="primary">
                Save changes
              </button>
              {saved ? <span role="status">Saved.</span> : null}
            </div>
          </form>
          {sections.has('api-access') ? <ApiAccess api={api} client={client} /> : null}
          {sections.has('tokens') ? (
            <>
              <TokenSettings api={api} client={client} onSaved={setClient} />
              <EnabledConnections api={api} client={client} />
              <OrganizationSettings api={api} client={client} onSaved={setClient} />
              <SamlAddon api={api} client={client} issuer={settings.issuer} onSaved={setClient} />
            </>
          ) : null}
          <div class="card danger-zone" id="delete">
            <h2>Delete this application</h2>
            <p>Its users keep their accounts, but nobody can sign in to it any more.</p>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete application
            </button>
          </div>
          {confirming ? (
            <ConfirmDialog title={`Delete ${client.name}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
              <p>This cannot be undone. Its client ID stops working at once.</p>
            </ConfirmDialog>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}

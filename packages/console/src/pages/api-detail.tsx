import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import type { PageProps } from '../app.js';
import { TOKEN_DIALECTS, type ResourceServer, type TokenDialect } from '../api-types.js';
import { ConfirmDialog, ErrorNote } from '../components.js';
import { duration, SecondsField, SettingsCard } from '../forms.js';
import { navigate } from '../router.js';
import { Permissions, PermissionsTable } from './api/permissions.js';

/** The platform's bounds on an API's access-token lifetime. */
const TOKEN_LIFETIME = { min: 60, max: 2_592_000 };

type CardProps = { api: Api; server: ResourceServer; onSaved: (server: ResourceServer) => void };

const patch = (api: Api, server: ResourceServer, body: Partial<ResourceServer>) => api<ResourceServer>('PATCH', `/resource-servers/${encodeURIComponent(server.id)}`, body);

function ApiSettings({ api, server, onSaved }: CardProps) {
  const [name, setName] = useState(server.name);
  const [lifetime, setLifetime] = useState(server.token_lifetime);
  const [offline, setOffline] = useState(server.allow_offline_access);
  const [skipConsent, setSkipConsent] = useState(server.skip_consent_for_verifiable_first_party_clients);
  return (
    <SettingsCard
      id="api-settings"
      title="Settings"
      saveLabel="Save settings"
      onSave={async () =>
        onSaved(await patch(api, server, { name: name.trim(), token_lifetime: lifetime, allow_offline_access: offline, skip_consent_for_verifiable_first_party_clients: skipConsent }))
      }
    >
      <label for="api-name">Name</label>
      <input id="api-name" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <SecondsField
        id="token-lifetime"
        label="Token lifetime (seconds)"
        hint="How long an access token for this API stays valid"
        value={lifetime}
        {...TOKEN_LIFETIME}
        onInput={setLifetime}
      />
      <label class="check">
        <input type="checkbox" checked={offline} onChange={(event) => setOffline(event.currentTarget.checked)} />
        <span>
          Allow offline access
          <small>Applications may get refresh tokens for this API (with the offline_access scope).</small>
        </span>
      </label>
      <label class="check">
        <input type="checkbox" checked={skipConsent} onChange={(event) => setSkipConsent(event.currentTarget.checked)} />
        <span>
          Skip consent for first-party applications
          <small>Users of your own applications are not asked to consent to this API's scopes.</small>
        </span>
      </label>
    </SettingsCard>
  );
}

function RbacSettings({ api, server, onSaved }: CardProps) {
  const [enforce, setEnforce] = useState(server.enforce_policies);
  const [dialect, setDialect] = useState<TokenDialect>(server.token_dialect);
  return (
    <SettingsCard id="rbac" title="Role-based access control" saveLabel="Save RBAC settings" onSave={async () => onSaved(await patch(api, server, { enforce_policies: enforce, token_dialect: dialect }))}>
      <label class="check">
        <input type="checkbox" checked={enforce} onChange={(event) => setEnforce(event.currentTarget.checked)} />
        <span>
          Enable RBAC
          <small>A user's token carries only the requested scopes the user holds as permissions, through roles or directly.</small>
        </span>
      </label>
      <fieldset>
        <legend>Token dialect</legend>
        {TOKEN_DIALECTS.map((entry) => (
          <label key={entry.value} class="choice">
            <input type="radio" name="token-dialect" value={entry.value} checked={dialect === entry.value} onChange={() => setDialect(entry.value)} />
            <span>
              <strong>{entry.label}</strong> <code>{entry.value}</code>
              <small>{entry.hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
    </SettingsCard>
  );
}

/** The Management API is Latchkey's own: shown as it is, changed by no one here. */
function SystemApi({ server }: { server: ResourceServer }) {
  return (
    <>
      <p class="note">This is a system API: Latchkey defines it, so its settings and permissions are shown read-only.</p>
      <div class="card">
        <h2>Settings</h2>
        <dl>
          <dt>Identifier</dt>
          <dd>
            <code>{server.identifier}</code>
          </dd>
          <dt>Signing algorithm</dt>
          <dd>{server.signing_alg}</dd>
          <dt>Token lifetime</dt>
          <dd>
            {server.token_lifetime} seconds ({duration(server.token_lifetime)})
          </dd>
          <dt>Allow offline access</dt>
          <dd>{server.allow_offline_access ? 'Yes' : 'No'}</dd>
          <dt>Token dialect</dt>
          <dd>
            <code>{server.token_dialect}</code>
          </dd>
        </dl>
      </div>
      <div class="card">
        <h2>Permissions</h2>
        <PermissionsTable permissions={server.scopes} />
      </div>
    </>
  );
}

export function ApiDetail({ api, id }: PageProps & { id: string }) {
  const [server, setServer] = useState<ResourceServer | undefined>();
  const [error, setError] = useState<unknown>();
  const [confirming, setConfirming] = useState(false);
  const path = `/resource-servers/${encodeURIComponent(id)}`;

  useEffect(() => {
    api<ResourceServer>('GET', path).then(setServer, setError);
  }, [api, path]);

  async function remove() {
    setConfirming(false);
    try {
      await api('DELETE', path);
      navigate('/admin/apis');
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <section>
      <p>
        <a href="/admin/apis">← APIs</a>
      </p>
      <h1 tabIndex={-1}>
        {server?.name ?? 'API'}
        {server?.is_system ? <span class="tag">System</span> : null}
      </h1>
      {server ? (
        <p class="muted">
          Identifier (audience) <code>{server.identifier}</code>, signed with {server.signing_alg}.
        </p>
      ) : null}
      <ErrorNote error={error} />
      {server?.is_system ? <SystemApi server={server} /> : null}
      {server && !server.is_system ? (
        <>
          <ApiSettings api={api} server={server} onSaved={setServer} />
          <Permissions api={api} server={server} onSaved={setServer} />
          <RbacSettings api={api} server={server} onSaved={setServer} />
          <div class="card danger-zone">
            <h2>Delete this API</h2>
            <p>Applications lose their grants for it, and roles and users the permissions it defines.</p>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete API
            </button>
          </div>
          {confirming ? (
            <ConfirmDialog title={`Delete ${server.name}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
              <p>This cannot be undone. Tokens already issued for it stay valid until they expire.</p>
            </ConfirmDialog>
          ) : null}
        </>
      ) : null}
      {!server && !error ? <p aria-busy="true">Loading…</p> : null}
    </section>
  );
}

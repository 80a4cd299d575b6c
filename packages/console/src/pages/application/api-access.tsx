import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import type { ClientGrant, ResourceServer } from '../../api-types.js';
import { ConfirmDialog, ErrorNote, Pager } from '../../components.js';
import type { Client, ListPage } from '../../types.js';
import { apiPath } from '../apis.js';

const GRANTS_PER_PAGE = 10;
const APIS_PER_PAGE = 50;

/** The scopes of one API as checkboxes; `name` keeps each group's ids apart on a page with several. */
function ScopeChoices({ name, server, chosen, onChange }: { name: string; server: ResourceServer; chosen: string[]; onChange: (scopes: string[]) => void }) {
  if (server.scopes.length === 0) return <p>This API defines no permissions yet: the application gets tokens without scopes.</p>;
  return (
    <fieldset>
      <legend>Permissions granted for {server.name}</legend>
      <div class="choices">
        {server.scopes.map((scope) => (
          <label key={scope.value} class="check" for={`${name}-${scope.value}`}>
            <input
              id={`${name}-${scope.value}`}
              type="checkbox"
              checked={chosen.includes(scope.value)}
              onChange={(event) => onChange(event.currentTarget.checked ? [...chosen, scope.value] : chosen.filter((value) => value !== scope.value))}
            />
            <span>
              <code>{scope.value}</code>
              {scope.description ? <small>{scope.description}</small> : null}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** Authorizes the application for one more API: the APIs are paged, and the chosen one's permissions offered. */
function Authorize({ api, client, granted, onDone }: { api: Api; client: Client; granted: ReadonlySet<string>; onDone: () => void }) {
  const [page, setPage] = useState(0);
  const [apis, setApis] = useState<ListPage<'resource_servers', ResourceServer> | undefined>();
  const [audience, setAudience] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api<ListPage<'resource_servers', ResourceServer>>('GET', `/resource-servers?include_totals=true&page=${page}&per_page=${APIS_PER_PAGE}`).then(setApis, setError);
  }, [api, page]);

  const choices = apis?.resource_servers.filter((server) => !granted.has(server.identifier)) ?? [];
  const chosen = choices.find((server) => server.identifier === audience);

  async function submit(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      await api<ClientGrant>('POST', '/client-grants', { client_id: client.client_id, audience, scope: scopes });
      onDone();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="subcard" onSubmit={submit} aria-labelledby="authorize-title">
      <h3 id="authorize-title">Authorize an API</h3>
      <label for="grant-api">API</label>
      <select
        id="grant-api"
        required
        value={audience}
        onChange={(event) => {
          setAudience(event.currentTarget.value);
          setScopes([]);
        }}
      >
        <option value="">Choose an API</option>
        {choices.map((server) => (
          <option key={server.id} value={server.identifier}>
            {server.name} ({server.identifier})
          </option>
        ))}
      </select>
      {apis && apis.total > APIS_PER_PAGE ? <Pager page={page} perPage={APIS_PER_PAGE} total={apis.total} label="APIs" onPage={setPage} /> : null}
      {chosen ? <ScopeChoices name="new-grant" server={chosen} chosen={scopes} onChange={setScopes} /> : null}
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={!chosen}>
          Authorize
        </button>
      </div>
    </form>
  );
}

/** One grant: its API and scopes, which the administrator may change, or revoke it. */
function GrantRow({ api, grant, onChanged, onRevoke }: { api: Api; grant: ClientGrant; onChanged: (grant: ClientGrant) => void; onRevoke: (grant: ClientGrant) => void }) {
  const [server, setServer] = useState<ResourceServer | undefined>();
  const [editing, setEditing] = useState<string[] | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api<ResourceServer>('GET', `/resource-servers/${encodeURIComponent(grant.audience)}`).then(setServer, setError);
  }, [api, grant.audience]);

  async function save(event: Event) {
    event.preventDefault();
    if (!editing) return;
    setError(undefined);
    try {
      onChanged(await api<ClientGrant>('PATCH', `/client-grants/${encodeURIComponent(grant.id)}`, { scope: editing }));
      setEditing(undefined);
    } catch (caught) {
      setError(caught);
    }
  }

  const name = server?.name ?? grant.audience;
  return (
    <li class="grant">
      <div class="title-row">
        <h3>{server ? <a href={apiPath(server)}>{name}</a> : name}</h3>
        <div class="actions">
          {!editing ? (
            <button type="button" aria-label={`Edit permissions for ${name}`} onClick={() => setEditing(grant.scope)}>
              Edit permissions
            </button>
          ) : null}
          <button type="button" class="danger" aria-label={`Revoke ${name}`} onClick={() => onRevoke(grant)}>
            Revoke
          </button>
        </div>
      </div>
      <p class="muted">
        <code>{grant.audience}</code>
      </p>
      {editing && server ? (
        <form onSubmit={save} aria-label={`Permissions for ${name}`}>
          <ScopeChoices name={`grant-${grant.id}`} server={server} chosen={editing} onChange={setEditing} />
          <div class="actions">
            <button type="button" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
            <button type="submit" class="primary">
              Save permissions
            </button>
          </div>
        </form>
      ) : (
        <p data-testid="granted-scopes">{grant.scope.length > 0 ? grant.scope.join(' ') : 'No permissions'}</p>
      )}
      <ErrorNote error={error} />
    </li>
  );
}

/** Client grants: the APIs a machine-to-machine application may get tokens for (client credentials), with which scopes. */
export function ApiAccess({ api, client }: { api: Api; client: Client }) {
  const [page, setPage] = useState(0);
  const [grants, setGrants] = useState<ListPage<'client_grants', ClientGrant> | undefined>();
  const [error, setError] = useState<unknown>();
  const [adding, setAdding] = useState(false);
  const [revoking, setRevoking] = useState<ClientGrant | undefined>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const query = new URLSearchParams({ client_id: client.client_id, include_totals: 'true', page: String(page), per_page: String(GRANTS_PER_PAGE) });
    api<ListPage<'client_grants', ClientGrant>>('GET', `/client-grants?${query.toString()}`).then(setGrants, setError);
  }, [api, client.client_id, page, reload]);

  async function revoke(grant: ClientGrant) {
    setRevoking(undefined);
    setError(undefined);
    try {
      await api('DELETE', `/client-grants/${encodeURIComponent(grant.id)}`);
      setReload(reload + 1);
    } catch (caught) {
      setError(caught);
    }
  }

  const replace = (changed: ClientGrant) => grants && setGrants({ ...grants, client_grants: grants.client_grants.map((grant) => (grant.id === changed.id ? changed : grant)) });
  return (
    <div class="card" id="api-access">
      <div class="title-row">
        <h2>API access</h2>
        {!adding ? (
          <button type="button" onClick={() => setAdding(true)}>
            Authorize an API
          </button>
        ) : null}
      </div>
      <p class="muted">The APIs this application may call with its own credentials (client credentials grant), and the permissions it gets there.</p>
      {adding ? (
        <Authorize
          api={api}
          client={client}
          granted={new Set(grants?.client_grants.map((grant) => grant.audience))}
          onDone={() => {
            setAdding(false);
            setReload(reload + 1);
          }}
        />
      ) : null}
      <ErrorNote error={error} />
      {grants ? (
        <>
          {grants.client_grants.length === 0 ? <p>Not authorized for any API.</p> : null}
          <ul class="grants">
            {grants.client_grants.map((grant) => (
              <GrantRow key={grant.id} api={api} grant={grant} onChanged={replace} onRevoke={setRevoking} />
            ))}
          </ul>
          {grants.total > GRANTS_PER_PAGE ? <Pager page={page} perPage={GRANTS_PER_PAGE} total={grants.total} label="Authorized APIs" onPage={setPage} /> : null}
        </>
      ) : null}
      {revoking ? (
        <ConfirmDialog title="Revoke this API access?" confirmLabel="Revoke" onConfirm={() => void revoke(revoking)} onCancel={() => setRevoking(undefined)}>
          <p>
            The application can no longer get tokens for <code>{revoking.audience}</code>. Tokens it holds stay valid until they expire.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { SettingsCard } from '../../forms.js';
import type { Client } from '../../types.js';

/**
 * Secrets are stored hashed: one is shown only when it was just created or rotated (`freshSecrets`, filled by the
 * create form), and the administrator copies it then.
 */
export const freshSecrets = new Map<string, string>();

const AUTH_METHODS = [
  { value: 'client_secret_post', label: 'Client secret (post)', hint: 'The secret in the body of token requests.' },
  { value: 'client_secret_basic', label: 'Client secret (basic)', hint: 'The secret in an HTTP Basic Authorization header.' },
  { value: 'none', label: 'None', hint: 'A public application (single-page or native) that cannot keep a secret; it uses PKCE.' },
];

function Secret({ client, api }: { client: Client; api: Api }) {
  const [secret, setSecret] = useState(() => freshSecrets.get(client.client_id));
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => () => void freshSecrets.delete(client.client_id), [client.client_id]);

  async function rotate() {
    setConfirming(false);
    setError(undefined);
    try {
      const rotated = await api<Client>('POST', `/clients/${encodeURIComponent(client.client_id)}/rotate-secret`);
      setSecret(rotated.client_secret);
      setShown(true);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <>
      <dl>
        <dt>Client secret</dt>
        <dd>
          {secret ? (
            <>
              <code data-testid="client-secret">{shown ? secret : '•'.repeat(24)}</code>{' '}
              <button type="button" onClick={() => setShown(!shown)} aria-pressed={shown}>
                {shown ? 'Hide' : 'Show'}
              </button>
              <small>Copy it now: Latchkey keeps only its hash and cannot show it again.</small>
            </>
          ) : (
            <span>Stored hashed; rotate it to get a new one.</span>
          )}
        </dd>
      </dl>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" onClick={() => setConfirming(true)}>
          Rotate secret
        </button>
      </div>
      {confirming ? (
        <ConfirmDialog title="Rotate the client secret?" confirmLabel="Rotate" onConfirm={() => void rotate()} onCancel={() => setConfirming(false)}>
          <p>The current secret stops working at once: the application needs the new one.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** The client ID, how the application authenticates at the token endpoint, and its secret when it has one. */
export function Credentials({ client, api, onSaved }: { client: Client; api: Api; onSaved: (client: Client) => void }) {
  const [method, setMethod] = useState(client.token_endpoint_auth_method ?? 'client_secret_post');
  const confidential = client.token_endpoint_auth_method !== 'none';
  return (
    <div class="card" id="credentials">
      <h2>Credentials</h2>
      <dl>
        <dt>Client ID</dt>
        <dd>
          <code>{client.client_id}</code>
        </dd>
      </dl>
      {confidential ? <Secret client={client} api={api} /> : null}
      <SettingsCard
        nested
        id="auth-method"
        title="Authentication method"
        saveLabel="Save authentication method"
        onSave={async () => onSaved(await api<Client>('PATCH', `/clients/${encodeURIComponent(client.client_id)}`, { token_endpoint_auth_method: method }))}
      >
        <div role="radiogroup" aria-labelledby="auth-method-title">
          {AUTH_METHODS.map((entry) => (
            <label key={entry.value} class="choice">
              <input type="radio" name="auth-method" value={entry.value} checked={method === entry.value} onChange={() => setMethod(entry.value)} />
              <span>
                <strong>{entry.label}</strong>
                <small>{entry.hint}</small>
              </span>
            </label>
          ))}
        </div>
        <small>A confidential application turned public loses its secret; one turned confidential needs a secret rotated first.</small>
      </SettingsCard>
    </div>
  );
}

import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { SettingsCard } from '../../forms.js';
import type { Client } from '../../types.js';

type Samlp = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The mappings as typed: a JSON object of profile fields to attribute names, or a refusal in words. */
function parseMappings(source: string): Record<string, string> | undefined {
  if (!source.trim()) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new Error(`Mappings are not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  const valid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((value) => typeof value === 'string');
  if (!valid) throw new Error('Mappings must be a JSON object whose values are SAML attribute names, e.g. {"email": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}.');
  return parsed as Record<string, string>;
}

/**
 * The SAML2 Web App add-on (`addons.samlp`): Latchkey as this application's SAML identity provider. Fields left
 * empty are not sent, so the add-on's defaults apply (the ACS URL is the first callback); settings the console does
 * not show (single logout, the signing certificate) are kept as they are.
 */
export function SamlAddon({ api, client, issuer, onSaved }: { api: Api; client: Client; issuer: string; onSaved: (client: Client) => void }) {
  const saved = client.addons?.samlp;
  const [enabled, setEnabled] = useState(saved !== undefined);
  const [callback, setCallback] = useState(text(saved?.callback));
  const [audience, setAudience] = useState(text(saved?.audience));
  const [recipient, setRecipient] = useState(text(saved?.recipient));
  const [mappings, setMappings] = useState(saved?.mappings ? JSON.stringify(saved.mappings, null, 2) : '');
  const [signResponse, setSignResponse] = useState(saved?.signResponse === true);
  const [confirmingOff, setConfirmingOff] = useState(false);
  const [error, setError] = useState<unknown>();
  const path = `/clients/${encodeURIComponent(client.client_id)}`;

  async function save() {
    const samlp: Samlp = { ...(saved ?? {}), callback, audience, recipient, signResponse };
    for (const field of ['callback', 'audience', 'recipient'] as const) if (!text(samlp[field]).trim()) delete samlp[field];
    const parsed = parseMappings(mappings);
    if (parsed) samlp.mappings = parsed;
    else delete samlp.mappings;
    onSaved(await api<Client>('PATCH', path, { addons: { ...(client.addons ?? {}), samlp } }));
  }

  async function turnOff() {
    setConfirmingOff(false);
    setError(undefined);
    try {
      const { samlp: _removed, ...others } = client.addons ?? {};
      onSaved(await api<Client>('PATCH', path, { addons: others }));
      setEnabled(false);
    } catch (caught) {
      setError(caught);
    }
  }

  const metadata = `${issuer}/samlp/metadata/${encodeURIComponent(client.client_id)}`;
  return (
    <SettingsCard id="saml" title="SAML2 Web App add-on" saveLabel="Save SAML settings" canSave={enabled} onSave={save}>
      <p class="muted">
        Service providers that speak SAML sign users in to this application through Latchkey, its identity provider. {saved ? 'The add-on is on.' : 'The add-on is off.'}
      </p>
      <div class="actions">
        {!enabled ? (
          <button type="button" onClick={() => setEnabled(true)}>
            Enable SAML
          </button>
        ) : null}
        {saved ? (
          <button type="button" class="danger" onClick={() => setConfirmingOff(true)}>
            Turn off SAML
          </button>
        ) : null}
      </div>
      <ErrorNote error={error} />
      {saved ? (
        <dl>
          <dt>Identity provider metadata</dt>
          <dd>
            <a href={metadata} target="_blank" rel="noreferrer" data-testid="saml-metadata">
              {metadata}
            </a>
          </dd>
          <dt>Sign-on URL</dt>
          <dd>
            <code>{`${issuer}/samlp/${encodeURIComponent(client.client_id)}`}</code>
          </dd>
        </dl>
      ) : null}
      {enabled ? (
        <>
          <label for="saml-callback">Application callback URL</label>
          <input id="saml-callback" type="url" aria-describedby="saml-callback-hint" value={callback} onInput={(event) => setCallback(event.currentTarget.value)} />
          <small id="saml-callback-hint">The service provider’s assertion consumer service URL (empty: the first allowed callback URL).</small>
          <label for="saml-audience">Audience</label>
          <input id="saml-audience" aria-describedby="saml-audience-hint" value={audience} onInput={(event) => setAudience(event.currentTarget.value)} />
          <small id="saml-audience-hint">The service provider’s entity ID, the audience of the assertions.</small>
          <label for="saml-recipient">Recipient</label>
          <input id="saml-recipient" aria-describedby="saml-recipient-hint" value={recipient} onInput={(event) => setRecipient(event.currentTarget.value)} />
          <small id="saml-recipient-hint">The recipient of the assertions (empty: the callback URL).</small>
          <label for="saml-mappings">Mappings (JSON)</label>
          <textarea id="saml-mappings" rows={5} spellcheck={false} aria-describedby="saml-mappings-hint" value={mappings} onInput={(event) => setMappings(event.currentTarget.value)} />
          <small id="saml-mappings-hint">
            Profile fields to SAML attribute names, e.g. <code>{'{"email": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}'}</code>.
          </small>
          <label class="check">
            <input type="checkbox" checked={signResponse} onChange={(event) => setSignResponse(event.currentTarget.checked)} />
            <span>Sign the whole response, not only the assertion</span>
          </label>
        </>
      ) : null}
      {confirmingOff ? (
        <ConfirmDialog title="Turn off the SAML add-on?" confirmLabel="Turn off" onConfirm={() => void turnOff()} onCancel={() => setConfirmingOff(false)}>
          <p>Its settings are removed, and service providers can no longer sign users in to this application through SAML.</p>
        </ConfirmDialog>
      ) : null}
    </SettingsCard>
  );
}

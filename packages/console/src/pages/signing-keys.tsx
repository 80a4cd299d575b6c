import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { currentSession } from '../auth.js';
import { ConfirmDialog, ErrorNote } from '../components.js';
import type { SigningKey } from '../types.js';

const statusOf = (key: SigningKey) => (key.current ? 'Current' : key.next ? 'Next' : key.revoked ? 'Revoked' : key.previous ? 'Previous' : '');
const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : undefined);

/** The key id in the header of the console's own access token: revoking that key ends this session. */
function sessionKid(): string | undefined {
  const header = currentSession()?.accessToken.split('.')[0];
  if (!header) return undefined;
  try {
    return (JSON.parse(atob(header.replace(/-/g, '+').replace(/_/g, '/'))) as { kid?: string }).kid;
  } catch {
    return undefined;
  }
}

function period(key: SigningKey): string {
  if (key.revoked) return `Revoked ${when(key.revoked_at) ?? ''}`;
  if (key.current) return `Signing since ${when(key.current_since) ?? 'the start'}`;
  if (key.next) return 'Published, signs after the next rotation';
  return `Signed until ${when(key.current_until) ?? '—'}; still verifies its tokens`;
}

/** `GET /api/v2/keys/signing`, `POST /api/v2/keys/signing/rotate`, `PUT /api/v2/keys/signing/{kid}/revoke`. */
export function SigningKeys({ api, settings }: PageProps) {
  const [keys, setKeys] = useState<SigningKey[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string | undefined>();
  const [asking, setAsking] = useState<{ action: 'rotate' } | { action: 'revoke'; key: SigningKey } | undefined>();

  const load = () => api<SigningKey[]>('GET', '/keys/signing').then(setKeys, setError);
  useEffect(() => {
    void load();
  }, [api]);

  async function act() {
    const question = asking;
    setAsking(undefined);
    setError(undefined);
    setDone(undefined);
    try {
      if (question?.action === 'rotate') {
        const current = await api<SigningKey>('POST', '/keys/signing/rotate');
        setDone(`Rotated: ${current.kid} now signs new tokens.`);
      } else if (question?.action === 'revoke') {
        await api<SigningKey>('PUT', `/keys/signing/${encodeURIComponent(question.key.kid)}/revoke`);
        setDone(`Revoked ${question.key.kid}: tokens it signed are refused.`);
      }
      await load();
    } catch (caught) {
      setError(caught);
    }
  }

  const current = keys?.find((key) => key.current);
  const next = keys?.find((key) => key.next);
  return (
    <>
      <h1 tabIndex={-1}>Signing keys</h1>
      <p>
        The keys that sign ID and access tokens (RS256). Applications check tokens against the published key set,{' '}
        <a href={`${settings.issuer}/.well-known/jwks.json`}>/.well-known/jwks.json</a>, which holds every key not revoked.
      </p>
      <ErrorNote error={error} />
      {done ? <p role="status">{done}</p> : null}
      {keys ? (
        <>
          <table>
            <caption class="visually-hidden">Signing keys</caption>
            <thead>
              <tr>
                <th scope="col">Key ID</th>
                <th scope="col">Status</th>
                <th scope="col">Period</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.kid}>
                  <td>
                    <code>{key.kid}</code>
                  </td>
                  <td>
                    {statusOf(key)}
                    {/* Beside the status, which narrow screens keep showing. */}
                    {key.previous && !key.revoked ? (
                      <button type="button" class="danger block" aria-label={`Revoke ${key.kid}`} onClick={() => setAsking({ action: 'revoke', key })}>
                        Revoke
                      </button>
                    ) : null}
                  </td>
                  <td>{period(key)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="card danger-zone">
            <h2>Rotate the signing key</h2>
            <p>The next key starts signing; the current one keeps verifying the tokens it signed until you revoke it.</p>
            <button type="button" class="danger" onClick={() => setAsking({ action: 'rotate' })}>
              Rotate signing key
            </button>
          </div>
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {asking?.action === 'rotate' ? (
        <ConfirmDialog title="Rotate the signing key?" confirmLabel="Rotate" onConfirm={() => void act()} onCancel={() => setAsking(undefined)}>
          <p>
            {next ? <code>{next.kid}</code> : 'A new key'} signs every token from now on. {current ? <code>{current.kid}</code> : 'The current key'} becomes a previous key: tokens it signed
            keep verifying until you revoke it. Applications that cache the key set must fetch it again when they meet the new key ID.
          </p>
        </ConfirmDialog>
      ) : null}
      {asking?.action === 'revoke' ? (
        <ConfirmDialog title={`Revoke ${asking.key.kid}?`} confirmLabel="Revoke" onConfirm={() => void act()} onCancel={() => setAsking(undefined)}>
          <p>
            It leaves the key set at once: every ID and access token it signed is refused, and their users must sign in again. This cannot be undone.
          </p>
          {sessionKid() === asking.key.kid ? <p>Your own console session was signed with it: the console signs you in again afterwards.</p> : null}
        </ConfirmDialog>
      ) : null}
    </>
  );
}

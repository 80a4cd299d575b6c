import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNote, StatusNote } from '../../components.js';
import { useAction } from '../../hooks.js';
import type { Identity } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';

const identityId = (identity: Identity) => `${identity.provider}|${identity.user_id}`;

/** The accounts joined in this user: the first is its own, the others were linked and can be unlinked. */
export function UserIdentities({ api, user, userPath, onUser }: UserSectionProps) {
  const action = useAction();
  const [secondary, setSecondary] = useState('');
  const [unlinking, setUnlinking] = useState<Identity | undefined>();
  const identities = user.identities ?? [];

  async function link(event: Event) {
    event.preventDefault();
    const id = secondary.trim();
    const bar = id.indexOf('|');
    await action.run(async () => {
      // A user id is `<provider>|<id>`; the API takes the two parts apart.
      if (bar <= 0 || bar === id.length - 1) throw new Error(`"${id}" is not a user ID: it looks like auth0|64f1c2… (the provider, a bar, then the ID).`);
      const linked = await api<Identity[]>('POST', `${userPath}/identities`, { provider: id.slice(0, bar), user_id: id.slice(bar + 1) });
      onUser({ ...user, identities: linked });
      setSecondary('');
      return `${id} is linked into this user.`;
    });
  }

  function unlink(identity: Identity) {
    setUnlinking(undefined);
    void action.run(async () => {
      const left = await api<Identity[]>('DELETE', `${userPath}/identities/${encodeURIComponent(identity.provider)}/${encodeURIComponent(identity.user_id)}`);
      onUser({ ...user, identities: left });
      return `${identityId(identity)} is a user of its own again.`;
    });
  }

  return (
    <>
      <ErrorNote error={action.error} />
      <StatusNote status={action.status} />
      <table>
        <caption class="visually-hidden">Identities</caption>
        <thead>
          <tr>
            <th scope="col">Connection</th>
            <th scope="col">User ID</th>
            <th scope="col">Provider</th>
            <th scope="col" class="act">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {identities.map((identity, index) => (
            <tr key={identityId(identity)}>
              <td>{identity.connection}</td>
              <td>
                <code>{identityId(identity)}</code>
              </td>
              <td>{identity.provider}</td>
              <td class="act">
                {index === 0 ? (
                  <span class="muted">Main identity</span>
                ) : (
                  <button type="button" class="danger" disabled={action.busy} onClick={() => setUnlinking(identity)}>
                    Unlink <span class="visually-hidden">{identityId(identity)}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="card" onSubmit={link} aria-labelledby="link-title">
        <h2 id="link-title">Link another account</h2>
        <label for="secondary-id">User ID of the account to link</label>
        <div class="row">
          <input id="secondary-id" required value={secondary} aria-describedby="secondary-hint" onInput={(event) => setSecondary(event.currentTarget.value)} />
          <button type="submit" disabled={action.busy}>
            Link
          </button>
        </div>
        <small id="secondary-hint">The other user becomes an identity of this one: they sign in as this user from now on.</small>
      </form>
      {unlinking ? (
        <ConfirmDialog title={`Unlink ${identityId(unlinking)}?`} confirmLabel="Unlink" onConfirm={() => unlink(unlinking)} onCancel={() => setUnlinking(undefined)}>
          <p>It becomes a user of its own again, with the profile it had when it was linked.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

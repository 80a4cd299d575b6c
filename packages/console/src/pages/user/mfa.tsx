import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNote, Pager, StatusNote, when } from '../../components.js';
import { useAction, useLoaded } from '../../hooks.js';
import type { AuthenticationMethod, ListPage } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';

const PER_PAGE = 10;

const TYPES: Record<string, string> = {
  totp: 'Authenticator app',
  phone: 'Phone',
  email: 'E-mail',
  'recovery-code': 'Recovery code',
  'webauthn-roaming': 'Security key',
  'webauthn-platform': 'Device biometrics',
  passkey: 'Passkey',
  password: 'Password',
};
const describe = (method: AuthenticationMethod) => method.name ?? method.phone_number ?? method.email ?? '';

/** The user's authentication methods (second factors): one can be deleted, or all of them reset at once. */
export function UserMfa({ api, userPath }: UserSectionProps) {
  const [page, setPage] = useState(0);
  const list = useLoaded(
    () => api<ListPage<'authenticators', AuthenticationMethod>>('GET', `${userPath}/authentication-methods?include_totals=true&page=${page}&per_page=${PER_PAGE}`),
    [api, userPath, page],
  );
  const [confirming, setConfirming] = useState<AuthenticationMethod | 'all' | undefined>();
  const action = useAction();

  function removeOne(method: AuthenticationMethod) {
    setConfirming(undefined);
    void action.run(async () => {
      await api('DELETE', `${userPath}/authentication-methods/${encodeURIComponent(method.id)}`);
      list.reload();
      return `${TYPES[method.type] ?? method.type} is deleted.`;
    });
  }
  function reset() {
    setConfirming(undefined);
    void action.run(async () => {
      await api('DELETE', `${userPath}/authentication-methods`);
      setPage(0);
      list.reload();
      return 'Multi-factor authentication is reset: the user enrolls again at their next login that asks for it.';
    });
  }
  const forgetBrowsers = () =>
    void action.run(async () => {
      await api('POST', `${userPath}/multifactor/actions/invalidate-remember-browser`);
      return 'Browsers the user had remembered ask for a second factor again.';
    });

  const methods = list.data?.authenticators ?? [];
  return (
    <>
      <div class="actions">
        <button type="button" class="danger" disabled={action.busy || methods.length === 0} onClick={() => setConfirming('all')}>
          Reset MFA
        </button>
        <button type="button" disabled={action.busy} onClick={forgetBrowsers}>
          Forget remembered browsers
        </button>
      </div>
      <ErrorNote error={list.error ?? action.error} />
      <StatusNote status={action.status} />
      {list.data ? (
        <>
          <table>
            <caption class="visually-hidden">Authentication methods</caption>
            <thead>
              <tr>
                <th scope="col">Method</th>
                <th scope="col">Name</th>
                <th scope="col">Enrolled</th>
                <th scope="col">Last used</th>
                <th scope="col" class="act">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {methods.map((method) => (
                <tr key={method.id}>
                  <td>
                    {TYPES[method.type] ?? method.type}
                    {method.confirmed === false ? <span class="badge">Not confirmed</span> : null}
                  </td>
                  <td>{describe(method)}</td>
                  <td>{when(method.created_at)}</td>
                  <td>{when(method.last_auth_at)}</td>
                  <td class="act">
                    <button type="button" class="danger" disabled={action.busy} onClick={() => setConfirming(method)}>
                      Delete <span class="visually-hidden">{TYPES[method.type] ?? method.type}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {methods.length === 0 ? <p>The user has no second factor.</p> : <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="Methods" onPage={setPage} />}
        </>
      ) : !list.error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {confirming === 'all' ? (
        <ConfirmDialog title="Reset multi-factor authentication?" confirmLabel="Reset MFA" onConfirm={reset} onCancel={() => setConfirming(undefined)}>
          <p>Every authentication method of the user is deleted. The user enrolls again at their next login that asks for a second factor.</p>
        </ConfirmDialog>
      ) : confirming ? (
        <ConfirmDialog title={`Delete this ${TYPES[confirming.type] ?? confirming.type}?`} confirmLabel="Delete" onConfirm={() => removeOne(confirming)} onCancel={() => setConfirming(undefined)}>
          <p>The user can no longer use it as a second factor.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

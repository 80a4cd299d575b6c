import { useState } from 'preact/hooks';
import { ConfirmDialog, CursorPager, ErrorNote, StatusNote, when } from '../../components.js';
import { useAction, useCursor, useLoaded } from '../../hooks.js';
import type { CheckpointPage, LoginSession, RefreshToken } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';
import { useClientNames } from './client-names.js';

const TAKE = 10;

type Revoking = { kind: 'session'; session: LoginSession } | { kind: 'token'; token: RefreshToken } | { kind: 'sessions' } | { kind: 'tokens' };

const listPath = (base: string, from: string | undefined) => `${base}?take=${TAKE}${from === undefined ? '' : `&from=${encodeURIComponent(from)}`}`;

/** A browser as people name it, from its User-Agent: enough to tell a user's sessions apart. */
function browserName(userAgent: string | undefined): string {
  if (!userAgent) return 'Unknown browser';
  const browser = /(Edg|Firefox|Chrome|Safari)\/[\d.]+/.exec(userAgent)?.[1]?.replace('Edg', 'Edge') ?? 'Browser';
  const system = /(Windows|Mac OS X|Android|iPhone|iPad|Linux)/.exec(userAgent)?.[1]?.replace('Mac OS X', 'macOS') ?? '';
  return system ? `${browser} on ${system}` : browser;
}

/**
 * The user's login sessions (single sign-on in a browser) and refresh tokens (an application's offline access).
 * Revoking a session also revokes the refresh tokens issued in it; revoking a token leaves the session.
 */
export function UserSessions({ api, userPath }: UserSectionProps) {
  const sessionCursor = useCursor();
  const tokenCursor = useCursor();
  const sessions = useLoaded(() => api<CheckpointPage<'sessions', LoginSession>>('GET', listPath(`${userPath}/sessions`, sessionCursor.from)), [api, userPath, sessionCursor.from]);
  const tokens = useLoaded(() => api<CheckpointPage<'tokens', RefreshToken>>('GET', listPath(`${userPath}/refresh-tokens`, tokenCursor.from)), [api, userPath, tokenCursor.from]);
  const [revoking, setRevoking] = useState<Revoking | undefined>();
  const action = useAction();
  const clientName = useClientNames(api, [
    ...(sessions.data?.sessions.flatMap((session) => session.clients.map((client) => client.client_id)) ?? []),
    ...(tokens.data?.tokens.map((token) => token.client_id) ?? []),
  ]);

  function revoke(what: Revoking) {
    setRevoking(undefined);
    void action.run(async () => {
      if (what.kind === 'session') await api('POST', `/sessions/${encodeURIComponent(what.session.id)}/revoke`);
      if (what.kind === 'token') await api('DELETE', `/refresh-tokens/${encodeURIComponent(what.token.id)}`);
      if (what.kind === 'sessions') await api('DELETE', `${userPath}/sessions`);
      if (what.kind === 'tokens') await api('DELETE', `${userPath}/refresh-tokens`);
      sessionCursor.reset();
      tokenCursor.reset();
      sessions.reload();
      tokens.reload();
      return {
        session: 'The session is revoked, with the refresh tokens issued in it.',
        token: 'The refresh token is revoked.',
        sessions: 'Every session of the user is revoked: they sign in again in every browser.',
        tokens: 'Every refresh token of the user is revoked.',
      }[what.kind];
    });
  }

  return (
    <>
      <ErrorNote error={action.error} />
      <StatusNote status={action.status} />
      <div class="title-row">
        <h2>Sessions</h2>
        <button type="button" class="danger" disabled={action.busy || !sessions.data?.sessions.length} onClick={() => setRevoking({ kind: 'sessions' })}>
          Revoke all sessions
        </button>
      </div>
      <ErrorNote error={sessions.error} />
      {sessions.data ? (
        <>
          <table>
            <caption class="visually-hidden">Sessions</caption>
            <thead>
              <tr>
                <th scope="col">Browser</th>
                <th scope="col">Applications</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last active</th>
                <th scope="col">Ends unless used</th>
                <th scope="col" class="act">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.sessions.map((session) => (
                <tr key={session.id}>
                  <td>
                    {browserName(session.device.initial_user_agent)}
                    <small>{session.device.initial_ip}</small>
                  </td>
                  <td>{session.clients.map((client) => clientName(client.client_id)).join(', ')}</td>
                  <td>{when(session.authenticated_at)}</td>
                  <td>{when(session.last_interacted_at)}</td>
                  <td>{when(session.idle_expires_at)}</td>
                  <td class="act">
                    <button type="button" class="danger" disabled={action.busy} onClick={() => setRevoking({ kind: 'session', session })}>
                      Revoke <span class="visually-hidden">session started {when(session.authenticated_at)}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {sessions.data.sessions.length === 0 ? <p>No live session.</p> : null}
          <CursorPager label="Sessions" hasPrevious={sessionCursor.hasPrevious} next={sessions.data.next} onPrevious={sessionCursor.previous} onNext={sessionCursor.next} />
        </>
      ) : null}

      <div class="title-row">
        <h2>Refresh tokens</h2>
        <button type="button" class="danger" disabled={action.busy || !tokens.data?.tokens.length} onClick={() => setRevoking({ kind: 'tokens' })}>
          Revoke all refresh tokens
        </button>
      </div>
      <ErrorNote error={tokens.error} />
      {tokens.data ? (
        <>
          <table>
            <caption class="visually-hidden">Refresh tokens</caption>
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">API and scopes</th>
                <th scope="col">Issued</th>
                <th scope="col">Last used</th>
                <th scope="col" class="act">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.tokens.map((token) => (
                <tr key={token.id}>
                  <td>{clientName(token.client_id)}</td>
                  <td>
                    {token.resource_servers.map((server) => (
                      <span key={server.audience}>
                        {server.audience}
                        <small>{server.scopes}</small>
                      </span>
                    ))}
                  </td>
                  <td>{when(token.created_at)}</td>
                  <td>{when(token.last_exchanged_at ?? token.created_at)}</td>
                  <td class="act">
                    <button type="button" class="danger" disabled={action.busy} onClick={() => setRevoking({ kind: 'token', token })}>
                      Revoke <span class="visually-hidden">refresh token issued {when(token.created_at)}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {tokens.data.tokens.length === 0 ? <p>No refresh token.</p> : null}
          <CursorPager label="Refresh tokens" hasPrevious={tokenCursor.hasPrevious} next={tokens.data.next} onPrevious={tokenCursor.previous} onNext={tokenCursor.next} />
        </>
      ) : null}

      {revoking ? (
        <ConfirmDialog
          title={{ session: 'Revoke this session?', token: 'Revoke this refresh token?', sessions: 'Revoke every session?', tokens: 'Revoke every refresh token?' }[revoking.kind]}
          confirmLabel="Revoke"
          onConfirm={() => revoke(revoking)}
          onCancel={() => setRevoking(undefined)}
        >
          <p>
            {
              {
                session: 'The browser is signed out of single sign-on, and the refresh tokens issued in this session stop working.',
                token: 'The application can no longer refresh its tokens: the user signs in again there.',
                sessions: 'Every browser of the user is signed out of single sign-on. Refresh tokens stay.',
                tokens: 'No application of the user can refresh its tokens any more.',
              }[revoking.kind]
            }
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

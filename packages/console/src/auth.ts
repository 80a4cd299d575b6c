import type { ConsoleSettings } from './settings.js';

/** The signed-in administrator, kept in this tab's session storage only. */
export interface Session {
  accessToken: string;
  expiresAt: number;
  scopes: string[];
  email: string | undefined;
}

const SESSION_KEY = 'latchkey-console.session';
const PENDING_KEY = 'latchkey-console.pending';

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

function callbackUrl(settings: ConsoleSettings): string {
  return `${settings.issuer}/admin/`;
}

/** Authorization code with PKCE (S256) at Latchkey's own /authorize, as any first-party single-page application. */
export async function signIn(settings: ConsoleSettings): Promise<never> {
  const verifier = randomString();
  const state = randomString();
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const returnTo = location.pathname + location.search;
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: callbackUrl(settings),
    audience: settings.audience,
    scope: ['openid', 'profile', 'email', ...settings.scopes].join(' '),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  });
  location.assign(`${settings.issuer}/authorize?${query.toString()}`);
  return new Promise<never>(() => undefined);
}

function decodeClaims(jwt: string): Record<string, unknown> {
  const payload = jwt.split('.')[1] ?? '';
  return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

/** Finishes a sign-in when the page is the callback (`?code=&state=`); returns where the administrator was going. */
export async function completeSignIn(settings: ConsoleSettings): Promise<string | undefined> {
  const params = new URLSearchParams(location.search);
  const state = params.get('state');
  if (!state || (!params.has('code') && !params.has('error'))) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem(PENDING_KEY);
  history.replaceState(null, '', location.pathname);
  if (!pending || pending.state !== state) throw new Error('The sign-in answer does not belong to this tab (its state differs). Sign in again.');
  const error = params.get('error');
  if (error) throw new Error(`Sign-in refused: ${params.get('error_description') ?? error}`);
  const response = await fetch(`${settings.issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      client_id: settings.clientId,
      code: params.get('code'),
      redirect_uri: callbackUrl(settings),
      code_verifier: pending.verifier,
    }),
  });
  const body = (await response.json()) as { access_token?: string; id_token?: string; expires_in?: number; scope?: string; error_description?: string; error?: string };
  if (!response.ok || !body.access_token) throw new Error(`Sign-in failed: ${body.error_description ?? body.error ?? response.statusText}`);
  const idClaims = body.id_token ? decodeClaims(body.id_token) : {};
  const session: Session = {
    accessToken: body.access_token,
    expiresAt: Date.now() + (body.expires_in ?? 0) * 1000,
    scopes: (body.scope ?? '').split(' ').filter(Boolean),
    email: typeof idClaims.email === 'string' ? idClaims.email : undefined,
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return pending.returnTo;
}

export function currentSession(): Session | undefined {
  const session = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Session | null;
  return session && session.expiresAt > Date.now() + 10_000 ? session : undefined;
}

/** Ends the console's session and the Latchkey session behind it. */
export function signOut(settings: ConsoleSettings): void {
  sessionStorage.removeItem(SESSION_KEY);
  const query = new URLSearchParams({ client_id: settings.clientId, returnTo: callbackUrl(settings) });
  location.assign(`${settings.issuer}/v2/logout?${query.toString()}`);
}

/** An administrator's token carries Management API permissions; anyone else's carries none of them. */
export function isAdministrator(session: Session, settings: ConsoleSettings): boolean {
  return session.scopes.some((scope) => settings.scopes.includes(scope) && !scope.includes('current_user'));
}

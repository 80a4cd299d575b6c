import { requestError, type Callback } from '../helper/errors.js';
import { request } from '../helper/request.js';
import type { KeyValueStore } from '../helper/storage.js';

/** How long the verifier of a cross-origin login is kept for the verification page (the login ticket lives less). */
const VERIFIER_SECONDS = 5 * 60;

/** Where the verifier of one cross-origin login waits, by the tenant's origin and the login's id. */
export const verifierKey = (tenantOrigin: string, coId: string) => `co/verifier/${encodeURIComponent(tenantOrigin)}/${encodeURIComponent(coId)}`;

export function keepVerifier(store: KeyValueStore, tenantOrigin: string, coId: string, verifier: string) {
  store.set(verifierKey(tenantOrigin, coId), verifier, VERIFIER_SECONDS);
}

/**
 * The application's cross-origin verification page (the client's `cross_origin_loc`), framed by our
 * `/authorize` when the browser dropped the third-party cookie of `/co/authenticate`. It says it is ready, then
 * answers each verifier request of the tenant's origin with the verifier it kept, once.
 */
export function serveVerifier(store: KeyValueStore, tenantOrigin: string): void {
  window.addEventListener('message', (event: MessageEvent) => {
    if (event.origin !== tenantOrigin || event.source !== window.parent) return;
    const data = event.data as { type?: unknown; request?: { id?: unknown } } | null;
    if (data?.type !== 'co_verifier_request' || typeof data.request?.id !== 'string') return;
    const key = verifierKey(tenantOrigin, data.request.id);
    const verifier = store.get(key) ?? '';
    store.remove(key);
    window.parent.postMessage({ type: 'co_verifier_response', response: { verifier } }, tenantOrigin);
  });
  if (window.parent !== window) window.parent.postMessage({ type: 'ready' }, tenantOrigin);
}

export interface CrossOriginDeps {
  base: string;
  clientId: string;
  tenantOrigin: string;
  verifiers: KeyValueStore;
}

/**
 * `/co/authenticate` with the credentials (our session cookie is set cross-site), then the login ticket goes
 * on to `/authorize` by `spendTicket` (a redirect, or a hidden frame). The verifier is kept for the
 * verification page in case the browser drops that cookie.
 */
export function authenticateCrossOrigin(
  deps: CrossOriginDeps,
  credentials: Record<string, unknown>,
  options: Record<string, unknown>,
  cb: Callback<never>,
  spendTicket: (authorizeOptions: Record<string, unknown>) => void,
): void {
  const body = { client_id: deps.clientId, ...credentials };
  request(`${deps.base}/co/authenticate`, { method: 'POST', body, withCredentials: true }).then(
    (answer) => {
      const result = answer.body as { login_ticket?: string; co_verifier?: string; co_id?: string } | null;
      if (answer.status < 200 || answer.status >= 300 || !result?.login_ticket) {
        cb(requestError({ status: answer.status, body: answer.body }, answer.body, answer, { legacyNames: true }));
        return;
      }
      if (result.co_id && result.co_verifier) keepVerifier(deps.verifiers, deps.tenantOrigin, result.co_id, result.co_verifier);
      const { connection: _connection, send: _send, popupOptions: _popupOptions, ...authorizeOptions } = options;
      spendTicket({ ...authorizeOptions, loginTicket: result.login_ticket });
    },
    (failure: unknown) => cb(requestError(failure, { error: 'request_error', error_description: String(failure) }, undefined, { legacyNames: true })),
  );
}

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

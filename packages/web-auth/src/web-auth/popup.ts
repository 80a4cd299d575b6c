import { requestError, type Callback } from '../helper/errors.js';

const MESSAGE_TYPE = 'latchkey:popup_response';
const POPUP_NAME = 'latchkey_authorize_popup';

/** Where a popup sits: centred over the page, 500 x 600 unless given. */
function features(options: { width?: number; height?: number; left?: number; top?: number } = {}): string {
  const width = options.width ?? 500;
  const height = options.height ?? 600;
  const left = options.left ?? window.screenX + (window.outerWidth - width) / 2;
  const top = options.top ?? window.screenY + (window.outerHeight - height) / 2;
  return `width=${width},height=${height},left=${Math.round(left)},top=${Math.round(top)}`;
}

/**
 * Opens `/authorize` in a popup and waits for the redirect page to hand back its hash (`popup.callback()`).
 * The hash is accepted only from that popup window and from the redirect URI's origin. A popup closed before
 * answering reports the reference library's error.
 */
export function authorizeInPopup(
  url: string,
  redirectOrigin: string,
  options: { features?: Parameters<typeof features>[0]; window?: Window | null },
  cb: Callback<string>,
): void {
  const reused = options.window && !options.window.closed ? options.window : null;
  if (reused) reused.location.href = url;
  const popup = reused ?? window.open(url, POPUP_NAME, features(options.features));
  if (!popup) {
    cb(requestError('Unable to open the popup window', { error: 'popup_blocked', error_description: 'The browser blocked the popup window' }));
    return;
  }
  let finished = false;
  const finish = (err: Parameters<Callback<string>>[0], hash?: string) => {
    if (finished) return;
    finished = true;
    window.removeEventListener('message', listen);
    clearInterval(watcher);
    if (!popup.closed) popup.close();
    cb(err, hash);
  };
  const listen = (event: MessageEvent) => {
    if (event.source !== popup || event.origin !== redirectOrigin) return;
    const data = event.data as { type?: unknown; hash?: unknown } | null;
    if (data?.type === MESSAGE_TYPE && typeof data.hash === 'string') finish(null, data.hash);
  };
  const watcher = setInterval(() => {
    if (popup.closed) finish({ original: 'User closed the popup window', code: null, description: 'User closed the popup window' });
  }, 300);
  window.addEventListener('message', listen);
  popup.focus();
}

/**
 * Opens the popup now, empty, for the next `popup.authorize`: a popup opened after asynchronous work is
 * blocked by browsers, one opened in the click handler is not.
 */
export function preloadPopup(popupOptions?: Parameters<typeof features>[0]): Window | null {
  return window.open('about:blank', POPUP_NAME, features(popupOptions));
}

/** Runs in the popup, on the redirect page: hands the hash to the page that opened it, on the same origin only. */
export function answerOpener(hash: string): void {
  if (!window.opener) return;
  (window.opener as Window).postMessage({ type: MESSAGE_TYPE, hash }, window.location.origin);
}

import type { ConsoleSettings } from './settings.js';

/** What the preview shows: an application's login (or sign-up) page, in a language when one is asked for. */
export interface PreviewTarget {
  clientId: string;
  redirectUri: string;
  screenHint: 'login' | 'signup';
  language: string | undefined;
}

/**
 * The hosted pages refuse to be framed (`frame-ancestors 'none'`, `X-Frame-Options: DENY`) and keep refusing: the
 * preview is a window of its own. It is a real authorization request, with `prompt=login` so that the
 * administrator's own session does not skip the page; nothing happens unless someone signs in there.
 */
export function previewUrl(settings: ConsoleSettings, target: PreviewTarget): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: target.clientId,
    redirect_uri: target.redirectUri,
    scope: 'openid profile email',
    prompt: 'login',
    // Any value: the page is only looked at; getRandomValues works outside secure contexts too.
    state: [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, '0')).join(''),
    ...(target.screenHint === 'signup' ? { screen_hint: 'signup' } : {}),
    ...(target.language ? { ui_locales: target.language } : {}),
  });
  return `${settings.issuer}/authorize?${query.toString()}`;
}

let opened: { window: Window; settings: ConsoleSettings; target: PreviewTarget } | undefined;

/**
 * Opens (or reuses) the preview window. The console keeps its handle so that a save can reload it, but the page
 * loses its `opener` before anything loads: an advanced page runs the tenant's scripts, which must not reach the
 * console's window and the administrator's token in it.
 */
export function openPreview(settings: ConsoleSettings, target: PreviewTarget): boolean {
  const url = previewUrl(settings, target);
  if (opened && !opened.window.closed) {
    opened = { ...opened, settings, target };
    // replace(): the one navigation a window may be given once it shows another origin (the application's callback).
    opened.window.location.replace(url);
    opened.window.focus();
    return true;
  }
  const preview = window.open(url, '_blank');
  if (!preview) return false;
  preview.opener = null;
  opened = { window: preview, settings, target };
  return true;
}

/** After a save: the open preview loads the page again (a fresh request), so it shows what was just saved. */
export function refreshPreview(): boolean {
  if (!opened || opened.window.closed) return false;
  opened.window.location.replace(previewUrl(opened.settings, opened.target));
  return true;
}

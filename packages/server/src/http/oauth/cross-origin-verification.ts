import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, jsonForScript, raw } from '../../text/html.js';

/**
 * The page `/authorize` shows when a login ticket arrives without its verifier cookie (the browser blocked the
 * third-party cookie of `/co/authenticate`). It frames the application's verification page
 * (`cross_origin_loc#origin=<ours>`), which holds the verifier in the application's own storage, and speaks the
 * browser library's protocol with it: `ready`, then `co_verifier_request {request: {id}}`, answered by
 * `co_verifier_response {response: {verifier}}`. Only messages from that page's origin count. The verifier goes
 * to `/co/verify`, which sets it as our first-party cookie, and the authorization request is made again.
 */
export function sendVerificationPage(reply: FastifyReply, input: { crossOriginLoc: string; ownOrigin: string; coId: string; loginTicket: string; retryUrl: string }) {
  const nonce = randomBytes(16).toString('base64');
  const frameOrigin = new URL(input.crossOriginLoc).origin;
  const frameSrc = `${input.crossOriginLoc.split('#')[0] ?? ''}#origin=${encodeURIComponent(input.ownOrigin)}`;
  const settings = { frameOrigin, coId: input.coId, loginTicket: input.loginTicket, retryUrl: input.retryUrl };
  // raw: jsonForScript escapes for the script it sits in, where HTML escaping would change the values.
  const page = html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Completing your login</title></head><body>
<p id="status" role="status">Completing your login…</p>
<iframe id="verifier" title="Cross-origin verification" src="${frameSrc}" style="display:none"></iframe>
<script nonce="${nonce}">(function () {
  var settings = ${raw(jsonForScript(settings))};
  var frame = document.getElementById('verifier');
  var answered = false;
  function fail() {
    if (answered === 'failed') return;
    answered = 'failed';
    document.getElementById('status').textContent = 'Your login could not be completed in this browser.';
    // The application hears it at its redirect URI (access_denied), rather than its user waiting here.
    window.location.replace(settings.retryUrl + '&co_verification=failed');
  }
  window.addEventListener('message', function (event) {
    if (event.origin !== settings.frameOrigin || event.source !== frame.contentWindow || !event.data) return;
    if (event.data.type === 'ready') {
      frame.contentWindow.postMessage({ type: 'co_verifier_request', request: { id: settings.coId } }, settings.frameOrigin);
    } else if (event.data.type === 'co_verifier_response' && !answered) {
      answered = true;
      var verifier = (event.data.response && event.data.response.verifier) || '';
      fetch('/co/verify', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login_ticket: settings.loginTicket, co_verifier: verifier })
      }).then(function (response) { if (response.ok) window.location.replace(settings.retryUrl); else fail(); }, fail);
    }
  });
  setTimeout(function () { if (!answered) fail(); }, 5000);
})();</script></body></html>`;
  return reply
    .code(200)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; frame-src ${frameOrigin}; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
    )
    .send(String(page));
}

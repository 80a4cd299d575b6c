import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AuthorizationAnswer } from '../../oauth/authorize/response.js';
import { html, jsonForScript, raw, type Html } from '../../text/html.js';

function formPostPage(action: string, fields: Record<string, string>, nonce: string): Html {
  const inputs = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Submit this form</title></head><body>
<form method="post" action="${action}">${inputs}<noscript><p>JavaScript is off: press the button to continue.</p><button type="submit">Continue</button></noscript></form>
<script nonce="${nonce}">document.forms[0].submit();</script></body></html>`;
}

/**
 * The platform's web_message page: it runs in a hidden iframe (or a popup) and posts the result to its parent or
 * opener, addressed only to the redirect URI's origin so that no other page can read it.
 */
function webMessagePage(targetOrigin: string, response: Record<string, string | number>, nonce: string): Html {
  // raw: jsonForScript escapes for the script it sits in, where HTML escaping would change the values.
  return html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Authorization response</title></head><body>
<script nonce="${nonce}">(function () {
  var target = window.opener || window.parent;
  target.postMessage({ type: "authorization_response", response: ${raw(jsonForScript(response))} }, ${raw(jsonForScript(targetOrigin))});
})();</script></body></html>`;
}

/** A CSP source for a URL: its origin, or its scheme for custom schemes (native apps), whose origin is "null". */
function cspSource(address: string): string {
  const url = new URL(address);
  return url.origin !== 'null' ? url.origin : url.protocol;
}

/** Sends an authorization answer: a 302, or a small page whose only script carries this response's nonce. */
export function sendAnswer(reply: FastifyReply, answer: AuthorizationAnswer): FastifyReply {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (answer.kind === 'redirect') return reply.redirect(answer.location, 302);
  const nonce = randomBytes(16).toString('base64');
  const base = `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'`;
  reply.type('text/html; charset=utf-8').header('referrer-policy', 'no-referrer');
  if (answer.kind === 'form_post') {
    return reply
      .header('content-security-policy', `${base}; form-action ${cspSource(answer.action)}; frame-ancestors 'none'`)
      .header('x-frame-options', 'DENY')
      .send(String(formPostPage(answer.action, answer.fields, nonce)));
  }
  // Framed on purpose (silent authentication), but only by the application's own origin.
  return reply
    .header('content-security-policy', `${base}; frame-ancestors ${cspSource(answer.targetOrigin)}`)
    .send(String(webMessagePage(answer.targetOrigin, answer.response, nonce)));
}

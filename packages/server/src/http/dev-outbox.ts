import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { OutboxEntry } from '../services/delivery/outbox.js';
import type { Registry } from '../registry.js';
import { html, raw, type Html } from '../text/html.js';

/** A web address in a message's text; trailing punctuation belongs to the sentence, not the link. */
const WEB_ADDRESS = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;

const STYLE = `
body{font-family:system-ui,sans-serif;line-height:1.5;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#111827}
article{border:1px solid #d1d5db;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
h2{font-size:1.1rem;margin:.5rem 0}dl{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:0;color:#4b5563}
dd{margin:0}.body p{margin:.5rem 0;overflow-wrap:anywhere}a{color:#1d4ed8}`;

/** Plain text as paragraphs, each web address a link; everything else escaped. */
function textAsHtml(text: string): Html[] {
  const linked = (line: string) => {
    const parts: Html[] = [];
    let last = 0;
    for (const match of line.matchAll(WEB_ADDRESS)) {
      parts.push(html`${line.slice(last, match.index)}<a href="${match[0]}">${match[0]}</a>`);
      last = match.index + match[0].length;
    }
    return html`${parts}${line.slice(last)}`;
  };
  return text
    .split(/\n{2,}/)
    .filter((paragraph) => paragraph.trim())
    .map((paragraph) => html`<p>${paragraph.split('\n').map((line, index) => html`${index > 0 && html`<br>`}${linked(line)}`)}</p>`);
}

function messageHtml(entry: OutboxEntry): Html {
  const [title, body, fields] =
    entry.channel === 'email'
      ? [entry.message.subject, entry.message.text, { 'E-mail to': entry.message.to }]
      : ['Text message', entry.message.body, { 'Text to': entry.message.to }];
  const details = Object.entries({ ...fields, Sent: entry.at }).map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`);
  return html`<article><h2>${title}</h2><dl>${details}</dl><div class="body">${textAsHtml(body)}</div></article>`;
}

function outboxPage(entries: OutboxEntry[], file: string, nonce: string): Html {
  return html`${[
    html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    // raw: STYLE is our own constant stylesheet (a <style> element does not decode HTML escapes).
    html`<title>Latchkey outbox</title><style nonce="${nonce}">${raw(STYLE)}</style></head><body><main>`,
    html`<h1>Outbox</h1><p>Development only: e-mails and text messages that would have been sent, newest first (${file}). `,
    html`Configure SMTP_URL and LATCHKEY_SMS_URL to send them for real.</p>`,
    entries.length > 0 ? entries.map(messageHtml) : html`<p>No messages yet.</p>`,
    html`</main></body></html>`,
  ]}`;
}

/**
 * `GET /dev/outbox` (development only, never registered when NODE_ENV=production): the messages that went to
 * the local outbox because no SMTP server or SMS provider is configured, newest first, so that a newcomer can
 * read codes and follow links without setting up mail.
 */
export function devOutboxRoutes(registry: Registry): FastifyPluginAsync {
  return async (app) => {
    app.get('/dev/outbox', { schema: { hide: true } }, async (_request, reply) => {
      const entries = await registry.outbox.recent(50);
      const nonce = randomBytes(16).toString('base64');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        // The links carry tickets and codes: they are not sent on as a referrer.
        .header('referrer-policy', 'no-referrer')
        .header('content-security-policy', `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`)
        .send(String(outboxPage(entries, registry.outbox.file, nonce)));
    });
  };
}

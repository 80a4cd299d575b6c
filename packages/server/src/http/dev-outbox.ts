import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from '../registry.js';
import { escapeHtml } from '../text/html.js';

/**
 * `GET /dev/outbox` (development only, never registered when NODE_ENV=production): the messages that went to
 * the local outbox because no SMTP server or SMS provider is configured, newest first, so that a newcomer can
 * read codes and links without setting up mail.
 */
export function devOutboxRoutes(registry: Registry): FastifyPluginAsync {
  return async (app) => {
    app.get('/dev/outbox', { schema: { hide: true } }, async (_request, reply) => {
      const entries = await registry.outbox.recent(50);
      const items = entries
        .map((entry) => {
          const heading = entry.channel === 'email' ? `E-mail to ${entry.message.to}: ${entry.message.subject}` : `Text message to ${entry.message.to}`;
          const body = entry.channel === 'email' ? entry.message.text : entry.message.body;
          return `<li><p><strong>${escapeHtml(heading)}</strong> <small>${escapeHtml(entry.at)}</small></p><pre>${escapeHtml(body)}</pre></li>`;
        })
        .join('');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        .send(
          `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Latchkey outbox</title></head><body>` +
            `<h1>Outbox</h1><p>Development only: e-mails and text messages that would have been sent (${escapeHtml(registry.outbox.file)}). ` +
            `Configure SMTP_URL and LATCHKEY_SMS_URL to send them for real.</p>` +
            (items ? `<ol>${items}</ol>` : '<p>No messages yet.</p>') +
            `</body></html>`,
        );
    });
  };
}

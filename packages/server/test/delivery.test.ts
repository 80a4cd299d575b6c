import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, decodeEntities, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { startSmtpServer, textOf, type ReceivedMail } from './support/smtp-receiver.js';

describe('e-mail and SMS delivery', () => {
  describe('through a real SMTP server and HTTP SMS provider', () => {
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let receiver: Server;
    const texts: { authorization: string | undefined; body: Record<string, unknown> }[] = [];
    let server: TestServer;
    let fx: LoginFixture;

    beforeAll(async () => {
      smtp = await startSmtpServer();
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          texts.push({ authorization: request.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
          response.writeHead(texts.length > 1 ? 503 : 202).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const receiverPort = (receiver.address() as { port: number }).port;
      server = await startTestServer({
        dialect: 'sqlite',
        listen: true,
        env: {
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          LATCHKEY_MAIL_FROM: 'Latchkey Test <no-reply@latchkey.test>',
          LATCHKEY_SMS_URL: `http://127.0.0.1:${receiverPort}/messages`,
          LATCHKEY_SMS_TOKEN: 'sms-provider-token',
          LATCHKEY_SMS_FROM: 'LatchkeyT',
        },
      });
      fx = await provisionLogin(server);
    });
    afterAll(async () => {
      await server?.close();
      await smtp?.close();
      await new Promise((resolve) => receiver?.close(resolve));
    });

    it('e-mails a working reset link for /dbconnections/change_password, and nothing for an unknown address', async () => {
      const ask = (email: string) =>
        fetch(`${server.url}/dbconnections/change_password`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: fx.spa.clientId, connection: fx.connection, email }),
        });
      expect((await ask('nobody@example.com')).status).toBe(200);
      expect((await ask(fx.user.email)).status).toBe(200);
      expect(smtp.mails).toHaveLength(1);
      const mail = smtp.mails[0] as ReceivedMail;
      expect(mail.from).toBe('no-reply@latchkey.test');
      expect(mail.to).toEqual([fx.user.email]);
      const text = textOf(mail.raw);
      expect(text).toMatch(/^Subject: Reset your password$/m);
      const link = /(https?:\/\/[^\s"<]+\/u\/reset-password\?ticket=[A-Za-z0-9_-]+)/.exec(text)?.[1];
      expect(link).toBeDefined();

      // The link from the e-mail sets a new password.
      const browser = new CookieClient(server.url);
      const linkUrl = new URL(decodeEntities(link ?? ''));
      const form = await (await browser.get(linkUrl.href)).text();
      const action = formAction(form) ?? '';
      expect(action).toBe(`/u/reset-password?ticket=${linkUrl.searchParams.get('ticket') ?? 'missing'}`);
      const fields = { state: inputValue(form, 'state') ?? '' };
      const done = await browser.postForm(action, { ...fields, 'password-reset': 'Brand-new-passw0rd', 're-enter-password': 'Brand-new-passw0rd' });
      expect(done.status).toBe(200);
      // The new password is the one that now logs in.
      const login = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'http://auth0.com/oauth/grant-type/password-realm', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: fx.user.email, password: 'Brand-new-passw0rd', realm: fx.connection }),
      });
      expect(login.status).toBe(200);
    });

    it('posts text messages to the provider as documented JSON with the bearer token, and reports its failures', async () => {
      await server.registry.delivery.sms({ to: '+15551234567', body: '123456 is your code' });
      expect(texts).toEqual([{ authorization: 'Bearer sms-provider-token', body: { to: '+15551234567', body: '123456 is your code', from: 'LatchkeyT' } }]);
      await expect(server.registry.delivery.sms({ to: '+15551234567', body: 'again' })).rejects.toThrow('the SMS provider answered 503');
    });
  });

  describe('without SMTP or an SMS provider: the local outbox', () => {
    let server: TestServer;
    let fx: LoginFixture;
    beforeAll(async () => {
      server = await startTestServer({ dialect: 'sqlite', listen: true });
      fx = await provisionLogin(server);
    });
    afterAll(async () => server?.close());

    it('keeps messages in the outbox file and lists them, escaped, at /dev/outbox', async () => {
      await server.registry.delivery.sms({ to: '+15550000000', body: '<b>654321</b> is your code' });
      const asked = await fetch(`${server.url}/dbconnections/change_password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: fx.spa.clientId, connection: fx.connection, email: fx.user.email }),
      });
      expect(asked.status).toBe(200);
      const recent = await server.registry.outbox.recent();
      expect(recent.map((entry) => entry.channel)).toEqual(['email', 'sms']);
      expect(recent[0]?.message).toMatchObject({ to: fx.user.email, subject: 'Reset your password' });
      const page = await fetch(`${server.url}/dev/outbox`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(`<h2>Reset your password</h2><dl><dt>E-mail to</dt><dd>${fx.user.email}</dd>`);
      // The reset link is a link (its ticket's characters escaped in the attribute and the text alike).
      expect(html).toMatch(/<a href="(http:\/\/[^"]+\/u\/reset-password\?ticket=[^"]+)">\1<\/a>/);
      expect(html).toContain('&lt;b&gt;654321&lt;/b&gt; is your code');
      expect(html).not.toContain('<b>654321');
    });
  });

  it('has no /dev/outbox in production', async () => {
    const production = await startTestServer({
      dialect: 'sqlite',
      listen: true,
      env: { NODE_ENV: 'production', LATCHKEY_SECRET: 'production-test-secret-0123456789abcdefghij' },
    });
    try {
      expect((await fetch(`${production.url}/dev/outbox`)).status).toBe(404);
    } finally {
      await production.close();
    }
  });
});

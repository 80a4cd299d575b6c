import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';
import { CookieClient, decodeEntities, inputValue } from './browser-client.js';

export const UPSTREAM_SECRET = 'upstream-client-secret-0123456789abcdefghij';

/**
 * An upstream OpenID Connect provider (npm oidc-provider, a certified implementation) on 127.0.0.1 with the
 * clients Latchkey uses (`latchkey`: code flow, `latchkey-front`: ID token by form post), its development login
 * pages and a fixed set of claims. `frontChannel: false` leaves out `latchkey-front`, which the provider takes
 * only for a Latchkey on HTTPS and not on localhost.
 */
export async function startOidcProvider(port: number, latchkeyUrl: string, options: { frontChannel?: boolean } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const url = `http://127.0.0.1:${port}`;
  const frontChannelClient = {
    client_id: 'latchkey-front',
    redirect_uris: [`${latchkeyUrl}/login/callback`],
    grant_types: ['implicit'],
    response_types: ['id_token'],
    token_endpoint_auth_method: 'none',
  };
  const provider = new Provider(url, {
    clients: [
      {
        client_id: 'latchkey',
        client_secret: UPSTREAM_SECRET,
        redirect_uris: [`${latchkeyUrl}/login/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
      ...(options.frontChannel === false ? [] : [frontChannelClient]),
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'nickname'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@upstream.example`, email_verified: true, name: `Upstream ${id}`, nickname: id }),
    }),
    features: { devInteractions: { enabled: true } },
  });
  const listening = await new Promise<ReturnType<typeof provider.listen>>((resolve) => {
    const started = provider.listen(port, '127.0.0.1', () => resolve(started));
  });
  return { url, close: () => new Promise((resolve) => listening.close(() => resolve())) };
}

/**
 * Walks the provider's development login and consent pages without a browser engine, from the authorization
 * request Latchkey sent the browser to (`start`), with a cookie jar of the provider's own; answers the URL the
 * provider sends the browser back to (Latchkey's `/login/callback?code=…`).
 */
export async function signInAtOidcProvider(start: string, login: string): Promise<string> {
  const origin = new URL(start).origin;
  const browser = new CookieClient(origin);
  let url = start;
  // Login, resume, consent, resume: a handful of hops; the bound stops a loop the provider would not end.
  for (let hop = 0; hop < 12; hop += 1) {
    let response = await browser.get(url);
    if (response.status === 200) {
      const page = await response.text();
      const prompt = inputValue(page, 'prompt');
      const action = decodeEntities(/<form[^>]*\baction="([^"]+)"/.exec(page)?.[1] ?? '');
      if (!prompt || !action) throw new Error(`The provider showed a page that is no login or consent form: ${page.slice(0, 200)}`);
      response = await browser.postForm(new URL(action, url).href, prompt === 'login' ? { prompt, login, password: 'anything' } : { prompt });
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) throw new Error(`The provider answered ${response.status} at ${url}.`);
    const next = new URL(location, url);
    if (next.origin !== origin) return next.href;
    url = next.href;
  }
  throw new Error('The provider did not send the browser back.');
}

/**
 * Signs in on the provider's development login page in the browser (any login name, any password) and accepts its
 * consent page when it shows one; the browser then goes back to Latchkey's `/login/callback`.
 */
export async function signInAtProviderPage(page: Page, providerUrl: string, login: string): Promise<void> {
  await page.waitForSelector('input[name="login"]');
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'anything');
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  if (page.url().startsWith(providerUrl)) await page.click('button[type="submit"]');
}

import type { CookieClient } from './browser-client.js';
import { inputValue } from './browser-client.js';
import type { TestServer } from './harness.js';
import type { LoginFixture } from './login-fixture.js';

/**
 * Follows a SAML sign-on at Latchkey as identity provider (`url`: `/samlp/{client_id}…`) to the hosted login
 * page and signs the fixture's user in there; answers the page that posts the SAML response.
 */
export async function signInForSaml(server: TestServer, fx: LoginFixture, browser: CookieClient, url: string): Promise<Response> {
  const start = await browser.get(url);
  if (start.status !== 302) throw new Error(`The sign-on answered ${start.status}, not the redirect to the login page.`);
  const loginPage = new URL(start.headers.get('location') ?? '', server.url);
  if (loginPage.pathname !== '/u/login') throw new Error(`The sign-on went to ${loginPage.pathname}, not the login page.`);
  const html = await (await browser.get(loginPage.pathname + loginPage.search)).text();
  return browser.postForm(loginPage.pathname + loginPage.search, { state: inputValue(html, 'state') ?? '', username: fx.user.email, password: fx.user.password });
}

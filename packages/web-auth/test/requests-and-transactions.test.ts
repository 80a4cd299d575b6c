import { describe, expect, it } from 'vitest';
import { Authentication } from '../src/authentication/authentication.js';
import { requestError } from '../src/helper/errors.js';
import { memoryStore } from '../src/helper/storage.js';
import { baseUrl } from '../src/helper/url.js';
import { authorizeParameters } from '../src/web-auth/authorize-params.js';
import { resolveOptions } from '../src/web-auth/options.js';
import { transactionStore } from '../src/web-auth/transactions.js';

describe('URLs', () => {
  it('uses HTTPS unless the domain names its scheme (local development)', () => {
    expect(baseUrl('tenant.example.com')).toBe('https://tenant.example.com');
    expect(baseUrl('http://localhost:3000/')).toBe('http://localhost:3000');
  });

  it('builds /authorize from the instance defaults and the call, in the wire names, without library-only options', () => {
    const client = new Authentication({ domain: 'tenant.example.com', clientID: 'abc', redirectUri: 'https://app.example.com/cb', audience: 'https://api/' });
    const url = new URL(client.buildAuthorizeUrl({ state: 's', nonce: 'n', connection: 'github', maxAge: 300, leeway: 5, appState: { a: 1 }, loginTicket: 't' }));
    expect(url.origin + url.pathname).toBe('https://tenant.example.com/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'abc',
      redirect_uri: 'https://app.example.com/cb',
      scope: 'openid profile email',
      audience: 'https://api/',
      response_type: 'code',
      state: 's',
      nonce: 'n',
      connection: 'github',
      max_age: '300',
      login_ticket: 't',
    });
    const withoutRedirect = new Authentication({ domain: 'tenant.example.com', clientID: 'abc' });
    expect(new URL(withoutRedirect.buildAuthorizeUrl()).searchParams.get('response_type')).toBe('token');
  });

  it('builds /v2/logout with returnTo and client_id', () => {
    const client = new Authentication({ domain: 'tenant.example.com', clientID: 'abc' });
    expect(client.buildLogoutUrl({ returnTo: 'https://app.example.com/bye', clientID: 'abc' })).toBe(
      'https://tenant.example.com/v2/logout?returnTo=https%3A%2F%2Fapp.example.com%2Fbye&client_id=abc',
    );
    expect(authorizeParameters({ password: 'secret', username: 'u', realm: 'db', scope: 'openid' })).toEqual({ scope: 'openid' });
  });
});

describe('options', () => {
  it('throws at construction for a missing or invalid option, as the reference does', () => {
    expect(() => resolveOptions({ clientID: 'a' } as never)).toThrow('domain option is required');
    expect(() => resolveOptions({ domain: 'd' } as never)).toThrow('clientID option is required');
    expect(() => resolveOptions({ domain: 'd', clientID: 'a', responseType: 'token bogus' })).toThrow('responseType');
    expect(() => resolveOptions({ domain: 'd', clientID: 'a', leeway: 1.5 })).toThrow('leeway is not valid');
    expect(() => resolveOptions({ domain: 'd', clientID: 'a', responseMode: 'nope' as never })).toThrow('responseMode is not valid');
    expect(resolveOptions({ domain: 'd', clientID: 'a' })).toMatchObject({ scope: 'openid profile email', leeway: 60 });
  });
});

describe('transactions', () => {
  it('keeps nonce and appState per state, hands them out once, and forgets them after 30 minutes', () => {
    let now = 1_000_000;
    const transactions = transactionStore(memoryStore(() => now));
    const first = transactions.begin({ responseType: 'token id_token', appState: { page: 2 } });
    expect(first.state.length).toBeGreaterThanOrEqual(40);
    expect(first.nonce?.length).toBeGreaterThanOrEqual(40);
    expect(transactions.begin({ responseType: 'token' }).nonce).toBeUndefined();
    expect(transactions.take(first.state)).toEqual({ nonce: first.nonce, appState: { page: 2 } });
    expect(transactions.take(first.state)).toBeNull();

    const given = transactions.begin({ responseType: 'id_token', state: 'mine', nonce: 'my-nonce', maxAge: 60 });
    expect(given).toEqual({ state: 'mine', nonce: 'my-nonce' });
    now += 30 * 60 * 1000 + 1;
    expect(transactions.take('mine')).toBeNull();
  });
});

describe('error objects', () => {
  it('reads each error family into code and description', () => {
    const answer = { status: 403, statusText: 'Forbidden' };
    expect(requestError('x', { error: 'access_denied', error_description: 'Wrong email or password.' }, answer, { legacyNames: true })).toEqual({
      original: 'x',
      code: 'access_denied',
      description: 'Wrong email or password.',
      error: 'access_denied',
      error_description: 'Wrong email or password.',
      statusCode: 403,
      statusText: 'Forbidden',
    });
    expect(requestError('x', { code: 'user_exists', description: 'The user already exists.', name: 'BadRequestError' })).toMatchObject({ code: 'user_exists', description: 'The user already exists.', name: 'BadRequestError' });
    expect(requestError('x', { statusCode: 403, error: 'Forbidden', message: 'No.', errorCode: 'insufficient_scope' })).toMatchObject({ code: 'Forbidden', description: 'No.' });
    expect(requestError('x', 'Origin https://a is not allowed.', { status: 403, statusText: '' })).toMatchObject({ code: null, description: 'Origin https://a is not allowed.', statusCode: 403 });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LibraryError } from '../src/helper/errors.js';
import { WebAuth } from '../src/web-auth/web-auth.js';

// Nothing listens on port 9 (discard): a call that gets past the library's own checks fails at once, offline.
const domain = 'http://127.0.0.1:9';

/** The first answer of a callback call, whichever way it comes. */
function answerOf(start: (cb: (err: LibraryError | null) => void) => void): Promise<LibraryError | null> {
  return new Promise((resolve) => start((err) => resolve(err)));
}

describe('passwordlessStart: a link needs redirectUri and responseType (spec, Methods)', () => {
  const refused = (message: string) => ({ code: 'invalid_request', description: message });

  it('refuses to send a link before any request when the instance lacks either, or asks for a code response', async () => {
    const start = (webAuth: WebAuth, options: Record<string, unknown>) => answerOf((cb) => webAuth.passwordlessStart({ connection: 'email', email: 'a@example.com', ...options }, cb));
    const bare = new WebAuth({ domain, clientID: 'abc' });
    // `send` left out or null sends a link, as the spec says.
    for (const send of [undefined, null, 'link']) {
      expect(await start(bare, { send })).toMatchObject(refused('redirectUri option is required to send a link'));
    }
    const withoutType = new WebAuth({ domain, clientID: 'abc', redirectUri: 'https://app.example.com/cb' });
    expect(await start(withoutType, { send: 'link' })).toMatchObject(refused('responseType option is required to send a link'));
    const code = new WebAuth({ domain, clientID: 'abc', redirectUri: 'https://app.example.com/cb', responseType: 'code' });
    expect(await start(code, { send: 'link' })).toMatchObject(refused('responseType option must be token or token id_token to send a link'));
    const idTokenOnly = new WebAuth({ domain, clientID: 'abc', redirectUri: 'https://app.example.com/cb', responseType: 'id_token' });
    expect(await start(idTokenOnly, {})).toMatchObject(refused('responseType option must be token or token id_token to send a link'));
  });

  it('takes them from the call’s authParams too, and asks nothing of a code sent by itself', async () => {
    const bare = new WebAuth({ domain, clientID: 'abc' });
    // Past the checks, the request itself goes out (and fails here, offline).
    const offline = (err: LibraryError | null) => expect(err).toMatchObject({ code: 'request_error' });
    offline(await answerOf((cb) => bare.passwordlessStart({ connection: 'email', email: 'a@example.com', send: 'link', authParams: { redirectUri: 'https://app.example.com/cb', responseType: 'token id_token' } }, cb)));
    offline(await answerOf((cb) => bare.passwordlessStart({ connection: 'email', email: 'a@example.com', send: 'code' }, cb)));
  });
});

describe('checkSession polling (spec, Limits: at least 15 minutes between calls)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('warns when the page checks the same application again within 15 minutes, whichever instance calls', async () => {
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // No redirectUri: each call ends at once with the library's own error, after the poll is counted.
    const options = { domain, clientID: 'polled-app' };
    await answerOf((cb) => new WebAuth(options).checkSession({}, cb));
    expect(warnings).not.toHaveBeenCalled();
    await answerOf((cb) => new WebAuth(options).checkSession({}, cb));
    expect(warnings).toHaveBeenCalledWith(expect.stringContaining('15 minutes'));
    warnings.mockClear();
    await answerOf((cb) => new WebAuth({ domain, clientID: 'another-app' }).checkSession({}, cb));
    expect(warnings).not.toHaveBeenCalled();
  });
});

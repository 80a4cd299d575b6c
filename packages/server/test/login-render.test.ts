import { describe, expect, it } from 'vitest';
import { pagePolicy, renderPage, selectRenderingConfig, type PageModel, type RenderingConfig } from '../src/http/login/render/index.js';

const HOSTILE = `"><script>window.x=1</script><img src=x onerror=alert(1)></title></style>\u2028'`;

function model(overrides: Partial<PageModel> = {}): PageModel {
  return {
    prompt: 'login',
    screen: 'login',
    locale: 'en',
    action: '/u/login?state=abc',
    hidden: { state: 'abc', _csrf: 'token' },
    values: { username: HOSTILE },
    links: { signup: '/u/signup?state=abc', resetPassword: '/u/reset-password/request?state=abc' },
    client: { client_id: 'cid', name: `App ${HOSTILE}`, metadata: { brand: HOSTILE, secretish: 'not-exposed' } },
    tenant: { name: 'acme', friendly_name: 'Acme', enabled_locales: ['en'] },
    authorizationParams: { login_hint: HOSTILE, 'ext-color': HOSTILE },
    cspNonce: 'nonce123',
    ...overrides,
  };
}

const advanced = (extra: Partial<RenderingConfig> = {}): RenderingConfig => ({ prompt: 'login', screen: 'login', rendering_mode: 'advanced', ...extra });

/** The JSON data block of an advanced page, parsed as a browser would read its text. */
function contextOf(html: string): Record<string, unknown> {
  const text = /<script type="application\/json" id="universal-login-context">([\s\S]*?)<\/script>/.exec(html)?.[1];
  expect(text).toBeDefined();
  return JSON.parse(text ?? '{}') as Record<string, unknown>;
}

describe('hosted page renderer', () => {
  it('renders the standard login form with escaped values and no raw hostile markup', () => {
    const html = renderPage(model({ errorCode: 'wrong-credentials' }));
    expect(html).toContain('name="username"');
    expect(html).toContain('name="password" type="password"');
    expect(html).toContain('role="alert"');
    expect(html).toContain('Wrong username or password.');
    expect(html).not.toContain('<script>window.x');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;');
    expect(html).toContain('<style nonce="nonce123">');
  });

  it('never writes a password back and drops javascript: links', () => {
    const html = renderPage(
      model({ screen: 'reset-password-success', prompt: 'reset-password', values: { password: 'secret-pass' }, links: { login: 'javascript:alert(1)' } }),
    );
    expect(html).not.toContain('secret-pass');
    expect(html).not.toContain('javascript:');
  });

  it('exposes exactly the configured context, escaped so it cannot close its script element', () => {
    const html = renderPage(
      model({ renderingConfig: advanced({ context_configuration: ['client.metadata.brand', 'untrusted_data.authorization_params.login_hint', 'tenant.friendly_name'] }) }),
    );
    expect(html.match(/<\/script>/g)?.length).toBe(1);
    // A raw line separator is harmless in markup but ends a line in older script parsers: the data block has none.
    expect(/id="universal-login-context">([^<]*)</.exec(html)?.[1]).not.toContain('\u2028');
    const context = contextOf(html);
    expect(context).toEqual({
      prompt: { name: 'login' },
      screen: { name: 'login' },
      transaction: { locale: 'en' },
      client: { metadata: { brand: HOSTILE } },
      untrusted_data: { authorization_params: { login_hint: HOSTILE } },
      tenant: { friendly_name: 'Acme' },
    });
    expect(html).not.toContain('not-exposed');
    expect(html).not.toContain('ext-color');
  });

  it('renders configured head tags with escaped attributes, refuses unknown elements, and keeps content inside its element', () => {
    const html = renderPage(
      model({
        renderingConfig: advanced({
          context_configuration: ['untrusted_data.authorization_params.login_hint'],
          head_tags: [
            { tag: 'meta', attributes: { name: 'x', content: HOSTILE, 'bad attr"': 'y', onload: true } },
            { tag: 'script', attributes: { src: 'https://cdn.example/app.js', defer: true } },
            { tag: 'script', content: 'var hint = {{ untrusted_data.authorization_params.login_hint }}; "</SCRIPT><b>x</b>";' },
            { tag: 'base', attributes: { href: 'https://evil.example/' } },
            { tag: 'body', content: 'nope' },
            { tag: 'title', content: `T ${HOSTILE}` },
          ],
        }),
      }),
    );
    expect(html).toContain('<meta name="x" content="&quot;&gt;&lt;script&gt;');
    expect(html).not.toContain('bad attr');
    expect(html).toContain('<script src="https://cdn.example/app.js" defer></script>');
    expect(html).toContain('<\\/SCRIPT><b>x</b>');
    // Every character but letters and digits is a \\u escape: the literal cannot end early whatever the value.
    expect(html).toContain('<script nonce="nonce123">var hint = "\\u0022\\u003e\\u003cscript\\u003ewindow\\u002ex');
    expect(html).not.toContain('evil.example');
    expect(html).not.toContain('nope');
    expect(html).toContain('<title>T &quot;&gt;&lt;script&gt;');
  });

  it('lets only nonce\'d inline scripts and the hosts of configured script sources run on an advanced page', () => {
    const config = advanced({
      context_configuration: ['untrusted_data.authorization_params.login_hint'],
      head_tags: [
        { tag: 'script', attributes: { src: 'https://cdn.example/app.js', async: true } },
        { tag: 'script', attributes: { src: 'https://cdn.example/npm/{{ untrusted_data.authorization_params.login_hint }}' } },
        { tag: 'script', attributes: { src: 'https://{{ untrusted_data.authorization_params.login_hint }}.example/x.js' } },
        { tag: 'script', attributes: { src: '/js/latchkey/app.js' } },
        { tag: 'script', attributes: { src: 'data:text/javascript,alert(1)' } },
        { tag: 'script', attributes: { nonce: 'configured', onerror: 'alert({{ untrusted_data.authorization_params.login_hint }})' }, content: 'window.ok = 1;' },
        { tag: 'link', attributes: { rel: 'stylesheet', href: 'https://styles.example/a.css', onload: 'alert(1)' } },
      ],
    });
    const page = model({ renderingConfig: config });
    expect(pagePolicy(page)).toBe("script-src 'nonce-nonce123' https://cdn.example 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
    const html = renderPage(page);
    expect(html).toContain('<script nonce="nonce123">window.ok = 1;</script>');
    expect(html).toContain('<link rel="stylesheet" href="https://styles.example/a.css">');
    expect(html).not.toContain('nonce="configured"');
    // Request data never chooses the code: a script whose address has a placeholder is left out.
    expect(html).toContain('<script src="https://cdn.example/app.js" async></script>');
    expect(html).not.toContain('cdn.example/npm');
    expect(html).not.toContain('.example/x.js');
    expect(pagePolicy(model())).toMatch(/^default-src 'self'; script-src 'nonce-nonce123'; .*base-uri 'none'; frame-ancestors 'none'$/);
  });

  it('drops the default head tags when asked, and wraps the page in the tenant template only when configured', () => {
    const template = '<!DOCTYPE html><html><head>{%- auth0:head -%}<link rel="icon" href="/i.png"></head><body class="t">{%- auth0:widget -%}</body></html>';
    const bare = renderPage(model({ pageTemplate: template, renderingConfig: advanced({ default_head_tags_disabled: true }) }));
    expect(bare).not.toContain('<style nonce');
    expect(bare).not.toContain('body class="t"');
    const wrapped = renderPage(model({ pageTemplate: template, renderingConfig: advanced({ use_page_template: true }) }));
    expect(wrapped).toContain('<body class="t"><script type="application/json" id="universal-login-context">');
    expect(wrapped).toContain('<link rel="icon" href="/i.png">');
    expect(wrapped).not.toContain('auth0:');
    const broken = renderPage(model({ pageTemplate: '<p>{%- auth0:widget -%}</p>', renderingConfig: advanced({ use_page_template: true }) }));
    expect(broken.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('selects a configuration by client id, client metadata and domain, with includes_any and excludes_any', () => {
    const target = { prompt: 'login', screen: 'login', clientId: 'a', clientMetadata: { tier: 'gold' }, domain: 'login.acme.test' };
    const pick = (filters: RenderingConfig['filters']) => selectRenderingConfig([advanced({ filters })], target);
    expect(pick(null)).toBeDefined();
    expect(pick({ match_type: 'includes_any', clients: [{ id: 'a' }] })).toBeDefined();
    expect(pick({ match_type: 'includes_any', clients: [{ id: 'b' }] })).toBeUndefined();
    expect(pick({ match_type: 'includes_any', clients: [{ metadata: { tier: 'gold' } }] })).toBeDefined();
    expect(pick({ match_type: 'includes_any', clients: [{ metadata: { tier: 'silver' } }] })).toBeUndefined();
    expect(pick({ match_type: 'includes_any', clients: [{ metadata: { toString: 'x' } }] })).toBeUndefined();
    expect(pick({ match_type: 'includes_any', domains: [{ id: 'login.acme.test' }] })).toBeDefined();
    expect(pick({ match_type: 'excludes_any', clients: [{ id: 'a' }] })).toBeUndefined();
    expect(pick({ match_type: 'excludes_any', clients: [{ id: 'b' }] })).toBeDefined();
    expect(pick({ match_type: 'includes_any', organizations: [{ id: 'org_1' }] })).toBeUndefined();
    expect(selectRenderingConfig([advanced({ screen: 'signup' })], target)).toBeUndefined();
  });
});

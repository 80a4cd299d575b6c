import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { pagePolicy, renderPage, selectRenderingConfig, type PageModel, type RenderingConfig } from '../src/http/login/render/index.js';
import { en } from '../src/services/rendering/texts/en.js';
import { defaultTexts, fillText, screenTexts } from '../src/services/rendering/texts/index.js';

const HOSTILE = `"><script>window.x=1</script><img src=x onerror=alert(1)></title></style>\u2028'`;

/** A screen's texts as the routes build them: Latchkey's defaults, the tenant's overrides, placeholders filled. */
function textsFor(screen: PageModel['screen'], clientName: string, overrides?: Record<string, string>): Record<string, string> {
  const texts = screenTexts(screen, 'en', overrides);
  return Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, fillText(text, { clientName, companyName: 'Acme' })]));
}

function model(overrides: Partial<PageModel> = {}): PageModel {
  const screen = overrides.screen ?? 'login';
  const clientName = `App ${HOSTILE}`;
  return {
    prompt: 'login',
    screen,
    locale: 'en',
    action: '/u/login?state=abc',
    hidden: { state: 'abc' },
    values: { username: HOSTILE },
    state: 'abc',
    errors: [],
    links: { signup: '/u/signup?state=abc', reset_password: '/u/reset-password/request/Username-Password-Authentication?state=abc' },
    screenData: {},
    texts: textsFor(screen, clientName),
    client: { client_id: 'cid', name: clientName, metadata: { brand: HOSTILE, secretish: 'not-exposed' } },
    tenant: { name: 'acme', friendly_name: 'Acme', enabled_locales: ['en'] },
    authorizationParams: { login_hint: HOSTILE, 'ext-color': HOSTILE },
    cspNonce: 'nonce123',
    ...overrides,
  };
}

const advanced = (extra: Partial<RenderingConfig> = {}): RenderingConfig => ({ prompt: 'login', screen: 'login', rendering_mode: 'advanced', ...extra });

const CONTEXT_SCRIPT = /<script nonce="nonce123">(window\.universal_login_context = [^<]*)<\/script>/;

/**
 * `window.universal_login_context` of an advanced page, read as a browser reads it: the inline script run as
 * JavaScript (not parsed as JSON), in a realm where it can touch nothing but the `window` it is given.
 */
function contextOf(html: string): Record<string, unknown> {
  const script = CONTEXT_SCRIPT.exec(html)?.[1];
  expect(script).toBeDefined();
  const window: Record<string, unknown> = {};
  const globals = { window };
  runInNewContext(script ?? '', globals);
  // The script sets the context and nothing else: no other property, no global.
  expect(Object.keys(window)).toEqual(['universal_login_context']);
  expect(Object.keys(globals)).toEqual(['window']);
  // Round-tripped to this realm's plain objects, so that toEqual compares data only.
  return JSON.parse(JSON.stringify(window.universal_login_context)) as Record<string, unknown>;
}

describe('hosted page renderer', () => {
  it('renders the standard login form with escaped values and no raw hostile markup', () => {
    const message = defaultTexts('login', 'en')['wrong-credentials'] ?? '';
    expect(message).toBe(en.shared.credentialErrors['wrong-credentials']);
    const html = renderPage(model({ errorCode: 'wrong-credentials', errors: [{ code: 'wrong-credentials', message }] }));
    expect(html).toContain('name="username"');
    expect(html).toContain('name="password" type="password"');
    // The form carries the transaction's state, and no other hidden field.
    expect(html).toContain('<input type="hidden" name="state" value="abc">');
    expect(html.match(/type="hidden"/g)?.length).toBe(1);
    expect(html).toContain('role="alert"');
    expect(html).toContain('The username or password is not correct.');
    expect(html).not.toContain('<script>window.x');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;');
    // The page title names the application: its hostile name is escaped there too.
    expect(html).toContain('<title>Log in · App &quot;&gt;&lt;script&gt;');
    expect(html).toContain('<style nonce="nonce123">');
  });

  it('escapes a tenant\'s hostile custom text like any other value', () => {
    const texts = textsFor('login', 'App', { title: HOSTILE, forgotPasswordText: HOSTILE, 'wrong-credentials': HOSTILE });
    const html = renderPage(model({ texts, errors: [{ code: 'wrong-credentials', message: texts['wrong-credentials'] ?? '' }] }));
    expect(html).toContain('<h1>&quot;&gt;&lt;script&gt;window.x=1');
    expect(html).not.toContain('<script>window.x');
    expect(html).not.toContain('<img src=x');
  });

  it('never writes a password back and drops javascript: links', () => {
    const success = renderPage(
      model({
        screen: 'reset-password-success',
        prompt: 'reset-password',
        values: { password: 'secret-pass', 'password-reset': 'secret-pass' },
        links: { login: 'javascript:alert(1)', application: 'javascript:alert(2)' },
      }),
    );
    expect(success).not.toContain('secret-pass');
    expect(success).not.toContain('javascript:');
    const login = renderPage(model({ values: { username: 'ann', password: 'secret-pass' }, links: { signup: 'javascript:alert(1)', reset_password: 'JavaScript:alert(2)' } }));
    expect(login).toContain('value="ann"');
    expect(login).not.toContain('secret-pass');
    expect(login.toLowerCase()).not.toContain('javascript:');
  });

  it('exposes exactly the configured context, escaped so it cannot close its script element', () => {
    const html = renderPage(
      model({
        screenData: { username: HOSTILE },
        errors: [{ code: 'wrong-credentials', field: 'password', message: HOSTILE }],
        renderingConfig: advanced({ context_configuration: ['client.metadata.brand', 'untrusted_data.authorization_params.login_hint', 'tenant.friendly_name'] }),
      }),
    );
    // The context script is the page's only script, and no value ends it early: its text holds no `<` at all.
    expect(html.match(/<script/g)?.length).toBe(1);
    expect(html.match(/<\/script>/g)?.length).toBe(1);
    const script = CONTEXT_SCRIPT.exec(html)?.[1] ?? '';
    expect(script).not.toContain('<');
    // A raw line or paragraph separator ends a line in older script parsers: the script has none.
    expect(script).not.toMatch(/[\u2028\u2029]/);
    // The context goes in the head; the body is left empty for the tenant's bundle.
    expect(html).toMatch(/<head>.*window\.universal_login_context = .*<\/head><body><\/body><\/html>$/s);
    const context = contextOf(html);
    expect(context).toEqual({
      client: { id: 'cid', name: `App ${HOSTILE}`, metadata: { brand: HOSTILE } },
      organization: {},
      prompt: { name: 'login' },
      screen: {
        name: 'login',
        data: { username: HOSTILE },
        links: { signup: '/u/signup?state=abc', reset_password: '/u/reset-password/request/Username-Password-Authentication?state=abc' },
      },
      tenant: { friendly_name: 'Acme' },
      transaction: { state: 'abc', locale: 'en', errors: [{ code: 'wrong-credentials', field: 'password', message: HOSTILE }] },
      untrusted_data: { authorization_params: { login_hint: HOSTILE } },
      user: {},
    });
    expect(html).not.toContain('not-exposed');
    expect(html).not.toContain('ext-color');
    // Neither the texts nor the form data are in the context unless configured.
    expect(html).not.toContain('forgotPasswordText');
    expect(html).not.toContain('submitted_form_data');
  });

  it('puts the screen texts and the submitted form data in the context when configured', () => {
    const texts = textsFor('login', 'App', { title: HOSTILE });
    const html = renderPage(
      model({ texts, values: { username: HOSTILE }, renderingConfig: advanced({ context_configuration: ['screen.texts', 'untrusted_data.submitted_form_data'] }) }),
    );
    const context = contextOf(html) as { screen: { texts: Record<string, string> }; untrusted_data: { submitted_form_data: Record<string, string> } };
    expect(context.screen.texts).toEqual(texts);
    expect(context.screen.texts.title).toBe(HOSTILE);
    expect(context.screen.texts.buttonText).toBe(en.shared.loginForm.buttonText);
    expect(context.untrusted_data.submitted_form_data.username).toBe(HOSTILE);
    expect(html.match(/<\/script>/g)?.length).toBe(1);
  });

  it('fills branding.settings and branding.themes.default only when configured, and brands the standard page', () => {
    const branding = {
      colors: { primary: '#0059d6', page_background: '#f0f4ff' },
      favicon_url: 'https://cdn.acme.example/favicon.png',
      logo_url: 'https://cdn.acme.example/logo.svg',
      font: { url: 'https://cdn.acme.example/font.woff2' },
    };
    const configured = advanced({ context_configuration: ['branding.settings', 'branding.themes.default'] });
    expect(contextOf(renderPage(model({ branding, renderingConfig: configured }))).branding).toEqual({ settings: branding, themes: { default: {} } });
    expect(contextOf(renderPage(model({ branding, renderingConfig: advanced() })))).not.toHaveProperty('branding');
    // A tenant without branding: no settings to show, the empty default theme all the same.
    expect(contextOf(renderPage(model({ renderingConfig: configured }))).branding).toEqual({ themes: { default: {} } });

    const standard = renderPage(model({ branding }));
    expect(standard).toContain('<img class="logo" src="https://cdn.acme.example/logo.svg"');
    expect(standard).toContain('<link rel="icon" href="https://cdn.acme.example/favicon.png">');
    expect(standard).toContain('<style nonce="nonce123">button{background:#0059d6}button.secondary{background:transparent;color:#0059d6;border-color:#0059d6}body{background:#f0f4ff}</style>');
    // The application's own logo goes first.
    expect(renderPage(model({ branding, client: { client_id: 'cid', name: 'App', logo_uri: 'https://app.example/own.png', metadata: {} } }))).toContain('src="https://app.example/own.png"');
    // Values that did not come through the API's checks never reach the style element or an attribute.
    const hostile = renderPage(model({ branding: { colors: { primary: HOSTILE, page_background: 'red}body{display:none' }, logo_url: 'javascript:alert(1)' } }));
    expect(hostile).not.toMatch(/button\{background|display:none|<img class="logo"|javascript:/);
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
    // The context is set before the configured tags run, so that their code can read it.
    expect(html.indexOf('window.universal_login_context')).toBeLessThan(html.indexOf('<meta name="x"'));
    expect(html).not.toContain('evil.example');
    expect(html).not.toContain('nope');
    expect(html).toContain('<title>T &quot;&gt;&lt;script&gt;');
    expect(html).toMatch(/<body><\/body><\/html>$/);
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
    // The context script runs under the same nonce as the configured inline scripts, and no other nonce is written.
    expect(html).toMatch(CONTEXT_SCRIPT);
    expect(html).toContain('<script nonce="nonce123">window.ok = 1;</script>');
    expect(html.match(/nonce="/g)?.length).toBe(3);
    expect(html.match(/nonce="nonce123"/g)?.length).toBe(3);
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
    // Without the default tags the context is still set, and the body is still left to the bundle.
    expect(contextOf(bare).screen).toEqual(expect.objectContaining({ name: 'login' }));
    expect(bare).toMatch(/<body><\/body><\/html>$/);
    const wrapped = renderPage(model({ pageTemplate: template, renderingConfig: advanced({ use_page_template: true }) }));
    // The head slot takes the context script; the widget slot stays empty.
    expect(wrapped).toMatch(/<head><meta charset="utf-8">.*<script nonce="nonce123">window\.universal_login_context = [^<]*<\/script><link rel="icon" href="\/i\.png"><\/head>/s);
    expect(wrapped).toContain('<body class="t"></body>');
    expect(wrapped).not.toContain('auth0:');
    expect(contextOf(wrapped).prompt).toEqual({ name: 'login' });
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

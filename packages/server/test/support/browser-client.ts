/**
 * A minimal browser for flow tests over a real socket: follows nothing by itself (each hop is asserted), keeps
 * cookies per name as a browser would for one site, and sends them back.
 */
export class CookieClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  private absorb(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute) || /^\s*expires=Thu, 01 Jan 1970/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const response = await fetch(url, { redirect: 'manual', headers: { ...this.cookieHeader(), ...headers } });
    this.absorb(response);
    return response;
  }

  /** A JSON POST as a page's fetch makes it (`headers` carries e.g. the page's Origin). */
  async postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...this.cookieHeader(), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    this.absorb(response);
    return response;
  }

  /** A form post as a browser sends it (`headers` carries e.g. the `Origin` of the page that posts). */
  async postForm(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    this.absorb(response);
    return response;
  }
}

/** The value of a hidden or text input in a page (`name="…" value="…"`, attributes in either order). */
export function inputValue(html: string, name: string): string | undefined {
  for (const tag of html.match(/<input\b[^>]*>/g) ?? []) {
    const named = /\bname="([^"]*)"/.exec(tag)?.[1];
    if (named === name) return decodeEntities(/\bvalue="([^"]*)"/.exec(tag)?.[1] ?? '');
  }
  return undefined;
}

/** Where a page's form posts (its `action`, entities decoded). */
export function formAction(html: string): string | undefined {
  const action = /<form\b[^>]*\baction="([^"]*)"/.exec(html)?.[1];
  return action === undefined ? undefined : decodeEntities(action);
}

export function decodeEntities(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&#x27;', "'")
    .replaceAll('&amp;', '&');
}

/**
 * The tenant's base URL from the `domain` option: HTTPS unless the domain names its scheme, which local
 * development does (`http://localhost:3000`).
 */
export function baseUrl(domain: string): string {
  const trimmed = domain.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

/** `base + path + ?query`, leaving out parameters that are undefined, null or empty. */
export function urlWithQuery(base: string, path: string, params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    query.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const encoded = query.toString();
  return `${base}${path}${encoded ? `?${encoded}` : ''}`;
}

/** The origin of an absolute URL, or undefined when it is not one. */
export function originOf(address: string): string | undefined {
  try {
    return new URL(address).origin;
  } catch {
    return undefined;
  }
}

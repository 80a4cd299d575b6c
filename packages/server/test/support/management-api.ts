import type { TestServer } from './harness.js';

/** A JSON answer as tests read it: properties and items stay `unknown` until an assertion narrows them. */
export type Body = Record<string, unknown> & Record<string, unknown>[];

export interface ApiResponse {
  status: number;
  body: Body;
}

/** Calls `/api/v2<path>` with the admin token (every scope) unless another token is given. */
export type ManagementApi = (method: string, path: string, body?: unknown, token?: string) => Promise<ApiResponse>;

/**
 * Management API calls by `inject`, or with `socket` over the server's real listening socket (the server must
 * have been started with `listen: true`).
 */
export function managementApi(server: TestServer, transport: 'inject' | 'socket' = 'inject'): ManagementApi {
  return async (method, path, body, token) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token ?? (await server.token())}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (transport === 'socket') {
      const response = await fetch(`${server.url}/api/v2${path}`, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Body };
    }
    const response = await server.app.inject({ method: method as 'GET', url: `/api/v2${path}`, headers, ...(payload === undefined ? {} : { payload }) });
    return { status: response.statusCode, body: (response.body ? JSON.parse(response.body) : undefined) as Body };
  };
}

/** Client credentials at the token endpoint, as a client of the Management API (or another audience) would. */
export async function clientCredentials(server: TestServer, clientId: string, clientSecret: string, audience = server.audience) {
  const response = await server.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience },
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

import type { ConsoleSettings } from './settings.js';
import type { Session } from './auth.js';

/** A Management API refusal, in the words the API gave (`message`), with its status and code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorCode: string | undefined,
  ) {
    super(message);
  }
}

export type Api = <T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) => Promise<T>;

/**
 * Calls the public Management API with the administrator's token: the console has no private endpoint. A body is sent
 * as JSON, or as multipart/form-data when it is a FormData (a users import).
 */
export function managementApi(settings: ConsoleSettings, session: Session, onExpired: () => void): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const form = body instanceof FormData;
    let response: Response;
    try {
      response = await fetch(`${settings.issuer}/api/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${session.accessToken}`, ...(body === undefined || form ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
      });
    } catch {
      throw new ApiError(0, 'The server could not be reached. Check that Latchkey is running, then try again.', undefined);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const error = (parsed ?? {}) as { message?: string; errorCode?: string };
      if (response.status === 401) onExpired();
      throw new ApiError(response.status, error.message ?? `${response.status} ${response.statusText}`, error.errorCode);
    }
    return parsed as T;
  };
}

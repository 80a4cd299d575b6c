/**
 * The library's two error shapes, as the reference library has them. Calls to the Authentication API answer
 * `{original, code, description, statusCode, ...}`; results read from a redirect, a frame or a token check
 * answer `{error, errorDescription}` (with the `state` when there is one).
 */
export interface RequestError {
  original: unknown;
  code: string | null;
  description: unknown;
  statusCode?: number;
  statusText?: string;
  /** Only on calls that also report the OAuth names (cross-origin login). */
  error?: string | null;
  error_description?: unknown;
  name?: string;
  policy?: string;
  /** popup.signupAndLogin: the account was created but the login after it failed. */
  errorInfo?: { error_code: string; message: string };
}

export interface AuthError {
  error: string;
  errorDescription: string;
  state?: string;
  errorInfo?: { error_code: string; message: string };
}

export type LibraryError = RequestError | AuthError;
export type Callback<T> = (err: LibraryError | null, result?: T) => void;

export function authError(error: string, errorDescription: string, state?: string): AuthError {
  return state === undefined ? { error, errorDescription } : { error, errorDescription, state };
}

export const invalidToken = (description: string, state?: string) => authError('invalid_token', description, state);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * An error body of the Authentication or Management API, whichever family it is (`{error, error_description}`,
 * `{code, description}`, `{statusCode, error, message}`), as one object the application can read the same way.
 */
export function requestError(
  original: unknown,
  body: unknown,
  response?: { status: number; statusText: string },
  options: { legacyNames?: boolean } = {},
): RequestError {
  const fields = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const result: RequestError = {
    original,
    code: text(fields.code) ?? text(fields.error) ?? text(fields.error_code) ?? text(fields.status) ?? null,
    description: fields.error_description ?? fields.description ?? fields.message ?? text(fields.error) ?? (typeof body === 'string' && body !== '' ? body : null),
  };
  if (response) {
    result.statusCode = response.status;
    if (response.statusText) result.statusText = response.statusText;
  }
  if (options.legacyNames) {
    result.error = result.code;
    result.error_description = result.description;
  }
  if (typeof fields.name === 'string') result.name = fields.name;
  if (typeof fields.policy === 'string') result.policy = fields.policy;
  return result;
}

/** A call the library refuses before any request (a required option missing or wrong). */
export function invalidRequest(message: string, options: { legacyNames?: boolean } = {}): RequestError {
  return requestError(message, { error: 'invalid_request', error_description: message }, undefined, options);
}

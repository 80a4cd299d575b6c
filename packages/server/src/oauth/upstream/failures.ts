import { ClientError, ResponseBodyError, WWWAuthenticateChallengeError, type CustomFetch } from 'openid-client';

/** A failed step with the upstream provider; its message goes to the application as `access_denied`. */
export class UpstreamError extends Error {}

/** A request to the provider that got no answer (refused, reset, timed out). */
class Unreachable extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * The fetch openid-client makes its requests with: the global one (the library puts its own timeout signal on
 * each request), with a request that got no answer marked, so that the message can say which endpoint it was.
 */
export const upstreamFetch: CustomFetch = async (url, options) => {
  try {
    // The library's body type admits a Uint8Array over any buffer; the DOM typings want one over an ArrayBuffer.
    return await fetch(url, options as RequestInit);
  } catch (error) {
    throw new Unreachable(url, error);
  }
};

/** Which of the provider's answers a failure concerns; it words the message the application gets. */
export type Step = 'discovery document' | 'token endpoint' | 'ID token' | 'profile';

const UNREACHABLE: Record<Step, string> = {
  'discovery document': "The identity provider's discovery document could not be read",
  'token endpoint': "The identity provider's token endpoint could not be reached",
  'ID token': "The identity provider's ID token is not valid: its keys could not be read",
  profile: "The identity provider's profile could not be read",
};

const ANSWERED: Record<Step, (status: number) => string> = {
  'discovery document': (status) => `The identity provider's discovery document answered HTTP ${status}.`,
  'token endpoint': (status) => `The identity provider refused the code: HTTP ${status}.`,
  'ID token': (status) => `The identity provider's ID token is not valid: its keys answered HTTP ${status}.`,
  profile: (status) => `The identity provider's profile answered HTTP ${status}.`,
};

const NAMES: Record<Step, string> = { 'discovery document': 'discovery document', 'token endpoint': 'token endpoint', 'ID token': 'keys', profile: 'profile' };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

const refused = (error: string | undefined, description: string | undefined, status: number) =>
  `The identity provider refused the code: ${error ?? `HTTP ${status}`}${description ? ` (${description})` : ''}.`;

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** A request the provider's keys (jwks_uri) were read with counts as part of the ID token check. */
const stepOf = (url: string, step: Step, keysUrl: string | undefined): Step => (keysUrl !== undefined && sameUrl(url, keysUrl) ? 'ID token' : step);

/**
 * An openid-client failure as the UpstreamError our callers turn into `access_denied`, worded as before the
 * library did this work. The library wraps what went wrong in a ClientError whose cause says what it was: an
 * answer with the wrong status (a Response), an OAuth error body, a WWW-Authenticate challenge, or a failed check
 * (an error with a code). An invalid argument is a bug of ours and stays a 500.
 */
export function upstreamFailure(error: unknown, step: Step, keysUrl?: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_INVALID_ARG')) throw error;
  const inner = error instanceof ClientError && error.cause !== undefined ? error.cause : error;
  if (inner instanceof Unreachable) return new UpstreamError(`${UNREACHABLE[stepOf(inner.url, step, keysUrl)]}: ${inner.message}`);
  if (inner instanceof ResponseBodyError) return new UpstreamError(refused(inner.error, inner.error_description, inner.status));
  if (inner instanceof WWWAuthenticateChallengeError) {
    const parameters = inner.cause[0]?.parameters;
    return new UpstreamError(step === 'token endpoint' ? refused(parameters?.error, parameters?.error_description, inner.status) : ANSWERED[step](inner.status));
  }
  if (inner instanceof Response) {
    const at = stepOf(inner.url, step, keysUrl);
    const code = error instanceof ClientError ? error.code : undefined;
    return new UpstreamError(code === 'OAUTH_RESPONSE_IS_NOT_JSON' ? `The identity provider's ${NAMES[at]} did not answer JSON (HTTP ${inner.status}).` : ANSWERED[at](inner.status));
  }
  const detail = inner instanceof Error ? inner.message : error instanceof Error ? error.message : String(error);
  const facts = inner instanceof Error && isObject(inner.cause) ? inner.cause : isObject(inner) ? inner : {};
  // The library's checks of an answer's body name it "response"; all others are checks of a JWT.
  if (detail.includes('"response"') || 'body' in facts) {
    const keys = keysUrl !== undefined && isObject(facts.body) && 'keys' in facts.body;
    return answerFailure(keys ? 'ID token' : step, detail, facts.body);
  }
  if (facts.claim === 'nonce') return new UpstreamError("The identity provider's ID token does not carry this login's nonce.");
  if (facts.claim === 'azp') return new UpstreamError("The identity provider's ID token was issued to another party (azp).");
  if (step === 'discovery document' || step === 'profile') return new UpstreamError(`The identity provider's ${step} is not valid: ${detail}`);
  return new UpstreamError(`The identity provider's ID token is not valid: ${detail}`);
}

/** A body the library could not use: not JSON, not an object, or without what it must carry. */
function answerFailure(step: Step, detail: string, body: unknown): UpstreamError {
  const name = NAMES[step];
  // Only an answer with the expected status (200) has its body parsed.
  if (body === undefined && detail.includes('parse')) return new UpstreamError(`The identity provider's ${name} did not answer JSON (HTTP 200).`);
  if (body !== undefined && !isObject(body)) return new UpstreamError(`The identity provider's ${name} did not answer a JSON object.`);
  if (isObject(body)) {
    if (step === 'discovery document' && (!text(body.issuer) || !text(body.authorization_endpoint))) {
      return new UpstreamError('The discovery document names no issuer or authorization_endpoint.');
    }
    if (step === 'token endpoint' && !text(body.access_token)) return new UpstreamError('The identity provider answered the code without an access token.');
    // Only an OpenID Connect exchange requires the ID token (a plain OAuth 2.0 one never reads it).
    if (step === 'token endpoint' && detail.includes('"id_token"')) return new UpstreamError('The identity provider answered the code without an ID token.');
  }
  return new UpstreamError(`The identity provider's ${name} answered something unexpected: ${detail}`);
}

/**
 * The answering methods of the sandbox's `api` (handlers.ts): `api.cache.get/set/delete` and
 * `api.redirect.encodeToken/validateToken`, synchronous as on the platform. Part of the prelude
 * (sandbox-prelude.ts), in its scope: each execution's `execution` object carries the host state handed in
 * (`clock()`, the action's cache entries as a Map, the login's binding) and the execution's `commands`.
 *
 * api.cache follows action-cache.ts (the platform's limits; changes recorded as `cache.set` / `cache.delete`
 * commands). A lifetime past the 24-hour maximum is cut to it rather than refused: the platform's records "may be
 * evicted earlier", never kept longer.
 *
 * api.redirect's tokens are HS256 JWTs. The host computes the HMAC (`hostHmac`, copying strings only); base64url
 * and JSON are done here. encodeToken's claims, as the platform documents them: `iss` the tenant's domain, `sub` the
 * user's id, `iat`, `exp` (`expiresInSeconds` later, 900 by default), and `state`, the login's state that the
 * redirect carries, so that the external site can hand it back; then the payload's own claims, which may replace
 * iss, sub and state (the platform's examples set `iss` themselves) but never iat and exp. validateToken reads the
 * token from the request's body (a POST to /continue, as the platform recommends against replay) or query, under
 * `tokenParameterName` (default `session_token`), and checks, in this order: the form, the algorithm (HS256 only),
 * the signature (in constant time), the standard claims the platform requires (iss, sub, iat, exp, state), the
 * expiry, and that `state` is this login's and `sub` its user's; it throws the platform's "The session token is
 * invalid: ..." errors, and answers the token's claims.
 */
export const ANSWERING_API_PRELUDE = String.raw`
// ---- api.cache ----
const CACHE_LIMITS = settings.cache;
const byteCount = (text) => utf8Encode(text).length;

function liveCacheEntries(execution) {
  const now = execution.clock();
  for (const [key, record] of execution.cache) if (record.expires_at <= now) execution.cache.delete(key);
  return execution.cache;
}

function cacheGet(execution) {
  return function get(key) {
    const record = liveCacheEntries(execution).get(String(key));
    return record === undefined ? undefined : { value: record.value, expires_at: record.expires_at };
  };
}

function cacheSet(execution) {
  return function set(key, value, options) {
    const failure = (code) => ({ type: 'error', code });
    if (typeof key !== 'string' || key.length === 0) return failure('INVALID_KEY');
    if (byteCount(key) > CACHE_LIMITS.maxKeyBytes) return failure('KEY_TOO_LARGE');
    if (typeof value !== 'string') return failure('INVALID_VALUE');
    if (byteCount(value) > CACHE_LIMITS.maxValueBytes) return failure('VALUE_TOO_LARGE');
    const now = execution.clock();
    let expiresAt = now + CACHE_LIMITS.defaultTtlMs;
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object') return failure('INVALID_OPTIONS');
      const { ttl, expires_at } = options;
      if (ttl !== undefined && (typeof ttl !== 'number' || !(ttl > 0) || ttl === Infinity)) return failure('INVALID_OPTIONS');
      if (expires_at !== undefined && (typeof expires_at !== 'number' || !(expires_at > now) || expires_at === Infinity)) return failure('INVALID_OPTIONS');
      if (ttl !== undefined || expires_at !== undefined) {
        expiresAt = Math.min(ttl === undefined ? Infinity : now + ttl, expires_at === undefined ? Infinity : expires_at);
      }
    }
    expiresAt = Math.floor(Math.min(expiresAt, now + CACHE_LIMITS.maxTtlMs));
    if (expiresAt <= now) return failure('INVALID_OPTIONS');
    const entries = liveCacheEntries(execution);
    let others = 0;
    let total = byteCount(key) + byteCount(value);
    for (const [other, record] of entries) {
      if (other === key) continue;
      others += 1;
      total += byteCount(other) + byteCount(record.value);
    }
    if (others >= CACHE_LIMITS.maxEntries) return failure('TOO_MANY_ENTRIES');
    if (total > CACHE_LIMITS.maxTotalBytes) return failure('CACHE_FULL');
    const record = { value, expires_at: expiresAt };
    entries.set(key, record);
    execution.commands.push({ op: 'cache.set', args: [key, value, expiresAt] });
    return { type: 'success', record: { value, expires_at: expiresAt } };
  };
}

function cacheDelete(execution) {
  return function (key) {
    if (typeof key !== 'string' || key.length === 0) return { type: 'error', code: 'INVALID_KEY' };
    if (liveCacheEntries(execution).delete(key)) execution.commands.push({ op: 'cache.delete', args: [key] });
    return { type: 'success' };
  };
}

// ---- api.redirect: HS256 session tokens ----
const segment = (value) => base64Encode(utf8Encode(stringify(value)), true);
const TOKEN_HEADER = segment({ alg: 'HS256', typ: 'JWT' });
const isRecord = (value) => value !== null && typeof value === 'object' && !isArray(value);

function hmac(secret, text) {
  if (text.length > settings.maxTokenChars) throw new RangeErrorClass('The session token is larger than ' + settings.maxTokenChars + ' characters');
  const signature = callHost(hostHmac, secret, text);
  if (typeof signature !== 'string') throw new ErrorClass('The session token could not be signed');
  return signature;
}

function tokenSecret(options, method) {
  if (!isRecord(options)) throw new TypeErrorClass('api.redirect.' + method + ': the options must be an object');
  if (typeof options.secret !== 'string' || options.secret.length === 0) throw new TypeErrorClass('api.redirect.' + method + ': options.secret must be a non-empty string');
  return options.secret;
}

function encodeToken(execution) {
  return function encodeToken(options) {
    const secret = tokenSecret(options, 'encodeToken');
    const lifetime = options.expiresInSeconds === undefined ? 900 : options.expiresInSeconds;
    if (typeof lifetime !== 'number' || !(lifetime > 0) || lifetime === Infinity) {
      throw new TypeErrorClass('api.redirect.encodeToken: options.expiresInSeconds must be a positive number of seconds');
    }
    if (options.payload !== undefined && !isRecord(options.payload)) throw new TypeErrorClass('api.redirect.encodeToken: options.payload must be an object');
    const login = execution.login;
    const claims = {};
    if (login !== null) {
      claims.iss = login.domain;
      claims.sub = login.userId;
      if (typeof login.state === 'string') claims.state = login.state;
    }
    const payload = options.payload === undefined ? {} : parse(stringify(options.payload));
    for (const name of objectKeys(payload)) claims[name] = payload[name];
    const now = Math.floor(execution.clock() / 1000);
    claims.iat = now;
    claims.exp = now + Math.floor(lifetime);
    const input = TOKEN_HEADER + '.' + segment(claims);
    return input + '.' + hmac(secret, input);
  };
}

function invalidToken(reason) {
  return new ErrorClass('The session token is invalid: ' + reason);
}

function readSegment(text) {
  try {
    const value = parse(utf8Decode(base64Decode(text), true));
    return isRecord(value) ? value : null;
  } catch (_) {
    return null;
  }
}

// Compares in time that depends only on the expected signature's length, not on where the texts differ.
function sameSignature(expected, given) {
  let difference = expected.length ^ given.length;
  for (let i = 0; i < expected.length; i += 1) difference |= expected.charCodeAt(i) ^ (i < given.length ? given.charCodeAt(i) : 0);
  return difference === 0;
}

function validateToken(execution) {
  return function validateToken(options) {
    const secret = tokenSecret(options, 'validateToken');
    if (execution.handlerName !== 'onContinuePostLogin') {
      throw new ErrorClass('api.redirect.validateToken can only be used in onContinuePostLogin, when the login resumes after the redirect');
    }
    const login = execution.login;
    if (login === null || typeof login.state !== 'string') throw new ErrorClass('api.redirect.validateToken: this execution is not bound to a login that resumed');
    const name = options.tokenParameterName === undefined ? 'session_token' : String(options.tokenParameterName);
    // The request as the host sent it: not the event object, which the handler may have changed.
    const parsedEvent = parse(execution.eventJson);
    const request = isRecord(parsedEvent) && isRecord(parsedEvent.request) ? parsedEvent.request : {};
    const fromBody = isRecord(request.body) ? request.body[name] : undefined;
    const token = typeof fromBody === 'string' ? fromBody : isRecord(request.query) ? request.query[name] : undefined;
    if (typeof token !== 'string' || token.length === 0) throw new ErrorClass('The session token is missing: the request has no ' + name + ' parameter');
    const parts = token.split('.');
    if (parts.length !== 3) throw invalidToken('Malformed token.');
    const header = readSegment(parts[0]);
    if (header === null) throw invalidToken('Malformed token.');
    if (header.alg !== 'HS256') throw invalidToken('Unsupported algorithm (only HS256 is accepted).');
    if (!sameSignature(hmac(secret, parts[0] + '.' + parts[1]), parts[2])) throw invalidToken('Invalid signature.');
    const claims = readSegment(parts[1]);
    if (claims === null) throw invalidToken('Malformed token.');
    const { iss, sub, iat, exp, state, nbf } = claims;
    if (typeof iss !== 'string' || typeof sub !== 'string' || typeof state !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
      throw invalidToken('Missing or invalid standard claims.');
    }
    const now = Math.floor(execution.clock() / 1000);
    if (exp <= now) throw invalidToken('The token has expired.');
    if (typeof nbf === 'number' && nbf > now) throw invalidToken('The token is not valid yet.');
    if (state !== login.state) throw invalidToken('State in the token does not match the /continue state.');
    if (sub !== login.userId) throw invalidToken('Subject in the token does not match the user.');
    return claims;
  };
}

const ANSWERING_METHODS = {
  'cache.get': cacheGet,
  'cache.set': cacheSet,
  'cache.delete': cacheDelete,
  'redirect.encodeToken': encodeToken,
  'redirect.validateToken': validateToken,
};
`;

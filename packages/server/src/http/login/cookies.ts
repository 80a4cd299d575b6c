import type { FastifyReply, FastifyRequest } from 'fastify';
import { TRANSACTION_SECONDS, transactionCookieName } from '../../oauth/authorize/transaction.js';
import { LOGIN_TICKET_SECONDS } from '../../oauth/login-tickets.js';
import type { Registry } from '../../registry.js';

export const SESSION_COOKIE = 'lk_session';

/**
 * Cookie attributes: always HttpOnly; on HTTPS also Secure, and the session cookie SameSite=None so that silent
 * authentication works inside an application's iframe. Browsers refuse SameSite=None without Secure, so plain
 * HTTP (development) uses Lax.
 */
export function cookieOptions(registry: Registry, sameSiteNone: boolean, maxAgeSeconds: number) {
  const secure = registry.issuer.startsWith('https:');
  return {
    path: '/',
    httpOnly: true,
    secure,
    sameSite: secure && sameSiteNone ? ('none' as const) : ('lax' as const),
    maxAge: maxAgeSeconds,
  };
}

export async function setSessionCookie(registry: Registry, reply: FastifyReply, handle: string): Promise<void> {
  reply.setCookie(SESSION_COOKIE, handle, cookieOptions(registry, true, (await registry.sessions.lifetimes()).absoluteSeconds));
}

export function clearSessionCookie(registry: Registry, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(registry, true, 0));
}

/** `crossSite`: the browser comes back from another site (a post-login Action's redirect), possibly with a form post. */
export function setTransactionCookie(registry: Registry, reply: FastifyReply, publicId: string, handle: string, crossSite = false): void {
  reply.setCookie(transactionCookieName(publicId), handle, cookieOptions(registry, crossSite, TRANSACTION_SECONDS));
}

export function clearTransactionCookie(registry: Registry, reply: FastifyReply, publicId: string): void {
  reply.clearCookie(transactionCookieName(publicId), cookieOptions(registry, false, 0));
}

/**
 * The verifier of a cross-origin login ticket, set by `/co/authenticate` (a third-party cookie from the
 * application's page, hence SameSite=None on HTTPS) or by `/co/verify`, and read once by `/authorize`.
 */
export const CO_VERIFIER_COOKIE = 'lk_co';

export function setCoVerifierCookie(registry: Registry, reply: FastifyReply, verifier: string): void {
  reply.setCookie(CO_VERIFIER_COOKIE, verifier, cookieOptions(registry, true, LOGIN_TICKET_SECONDS));
}

export function clearCoVerifierCookie(registry: Registry, reply: FastifyReply): void {
  reply.clearCookie(CO_VERIFIER_COOKIE, cookieOptions(registry, true, 0));
}

export const sessionHandle = (request: FastifyRequest) => request.cookies[SESSION_COOKIE];
export const coVerifier = (request: FastifyRequest) => request.cookies[CO_VERIFIER_COOKIE];
export const transactionHandle = (request: FastifyRequest, publicId: string) => request.cookies[transactionCookieName(publicId)];

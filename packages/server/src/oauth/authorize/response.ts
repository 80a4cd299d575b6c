import type { ResponseMode } from './request.js';

/** What the authorization endpoint answers: a redirect, or a page that posts or messages the result. */
export type AuthorizationAnswer =
  | { kind: 'redirect'; location: string }
  | { kind: 'form_post'; action: string; fields: Record<string, string> }
  | { kind: 'web_message'; targetOrigin: string; response: Record<string, string | number> };

/**
 * Delivers response parameters (a code, tokens, or an error, with `state`) in the response mode (OAuth 2.0
 * Multiple Response Types, Form Post Response Mode, and the platform's web_message mode).
 */
export function deliver(mode: ResponseMode, redirectUri: string, params: Record<string, string | number | undefined>): AuthorizationAnswer {
  const present = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  const url = new URL(redirectUri);
  switch (mode) {
    case 'query':
      for (const [name, value] of present) url.searchParams.set(name, String(value));
      return { kind: 'redirect', location: url.href };
    case 'fragment':
      url.hash = new URLSearchParams(present.map(([name, value]) => [name, String(value)])).toString();
      return { kind: 'redirect', location: url.href };
    case 'form_post':
      return { kind: 'form_post', action: redirectUri, fields: Object.fromEntries(present.map(([name, value]) => [name, String(value)])) };
    case 'web_message':
      return { kind: 'web_message', targetOrigin: url.origin, response: Object.fromEntries(present) };
  }
}

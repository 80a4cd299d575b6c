import { originFields, type LogEventType } from '../services/events/event.js';
import type { EventRecorder } from '../services/events/recorder.js';
import type { SignInPath, StageCheck } from './sign-in-pipeline.js';

/**
 * The platform's code for a sign-in that succeeded, per path: `s` for a login in the browser (hosted page,
 * cross-origin ticket, magic link, upstream and SAML providers alike; `strategy` tells them apart), the token
 * endpoint's success exchanges for the grants. A signup through the hosted page is also `ss`.
 */
export const SIGN_IN_EVENT: Readonly<Record<SignInPath, LogEventType>> = {
  'login-page': 's',
  'signup-page': 's',
  'cross-origin-ticket': 's',
  'passwordless-link': 's',
  'upstream-oauth': 's',
  'upstream-saml': 's',
  'idp-initiated-saml': 's',
  'password-grant': 'sepft',
  'password-realm-grant': 'sepft',
  'passwordless-otp-grant': 'sepotpft',
  'refresh-token-grant': 'sertft',
};

/** The `event-recorded` stage's check: the sign-in's success event(s). It never refuses and never waits. */
export function signInEvents(events: Pick<EventRecorder, 'record'>): StageCheck {
  return async (attempt) => {
    const userName = attempt.account?.email ?? attempt.account?.username;
    const base = {
      client_id: attempt.clientId,
      user_id: attempt.userId,
      ...(attempt.connection !== undefined ? { connection: attempt.connection } : {}),
      ...originFields(attempt.origin),
      ...(userName !== undefined ? { user_name: userName } : {}),
      ...(attempt.audience !== undefined ? { audience: attempt.audience } : {}),
      ...(attempt.scope !== undefined ? { scope: attempt.scope } : {}),
    };
    if (attempt.path === 'signup-page') events.record({ ...base, type: 'ss' });
    events.record({ ...base, type: SIGN_IN_EVENT[attempt.path], details: { path: attempt.path, amr: [...attempt.amr] } });
  };
}

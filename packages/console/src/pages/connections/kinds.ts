import type { Strategy } from '../../types.js';

/** The Authentication area's three lists, each of the strategies that belong to it. */
export type KindId = 'database' | 'passwordless' | 'enterprise';

export interface Kind {
  id: KindId;
  label: string;
  /** The list's path below /admin/authentication. */
  path: string;
  intro: string;
  strategies: readonly Strategy[];
}

export const KINDS: readonly Kind[] = [
  {
    id: 'database',
    label: 'Database',
    path: '/admin/authentication',
    intro: 'Users sign up and log in with an e-mail (or a username) and a password, or a passkey, kept by Latchkey.',
    strategies: ['auth0'],
  },
  {
    id: 'passwordless',
    label: 'Passwordless',
    path: '/admin/authentication/passwordless',
    intro: 'Users log in with a one-time code (or a link) sent by e-mail or text message.',
    strategies: ['email', 'sms'],
  },
  {
    id: 'enterprise',
    label: 'Enterprise and social',
    path: '/admin/authentication/enterprise',
    intro: 'Users log in at another identity provider: SAML, OpenID Connect or any OAuth 2.0 provider.',
    strategies: ['samlp', 'oidc', 'oauth2'],
  },
];

export const STRATEGY_LABELS: Record<Strategy, string> = {
  auth0: 'Database',
  email: 'E-mail',
  sms: 'Text message (SMS)',
  samlp: 'SAML',
  oidc: 'OpenID Connect',
  oauth2: 'OAuth 2.0',
};

export const kindOf = (strategy: Strategy): Kind => KINDS.find((kind) => kind.strategies.includes(strategy)) ?? (KINDS[0] as Kind);

export const connectionPath = (id: string) => `/admin/authentication/connections/${encodeURIComponent(id)}`;

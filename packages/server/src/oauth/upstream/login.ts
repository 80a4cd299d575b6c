import { randomBytes } from 'node:crypto';
import type { ConnectionSecrets } from '../../services/connection-secrets.js';
import type { ConnectionData } from '../../services/connections.js';
import type { FederatedUsers } from '../../services/federated-users.js';
import type { Storage } from '../../storage/storage.js';
import type { LoginTransaction, LoginTransactions } from '../authorize/transaction.js';
import { AccessDenied, InvalidRequest } from '../errors.js';
import { s256 } from '../pkce.js';
import { UpstreamError, type UpstreamClient } from './client.js';
import { isUpstream, upstreamSettings, usesDevelopmentKeys, type UpstreamSettings } from '../../services/connection-options/upstream.js';
import type { AuthorizationAnswer } from '../authorize/response.js';
import { samlSettings, type IdpInitiated, type SamlSettings } from '../../services/connection-options/saml.js';
import { SamlRefused, type SamlServiceProvider } from '../saml/service-provider.js';

/** What a login transaction remembers while the user is at an OpenID Connect or OAuth 2.0 provider. */
export interface UpstreamPending {
  connection: string;
  nonce: string;
  codeVerifier: string;
}

const SIGN_IN_REFUSALS = {
  blocked: 'user is blocked',
  no_subject: 'The identity provider named no user id.',
  email_taken: 'Another user of this connection has the same e-mail address.',
} as const;

/**
 * A user the provider vouched for whom Latchkey still refuses (blocked, no id, an e-mail another user has). The
 * application gets `access_denied` as for any refusal; `reason` lets the tenant log and the metrics say which.
 */
export class FederatedUserRefused extends AccessDenied {
  constructor(readonly reason: keyof typeof SIGN_IN_REFUSALS) {
    super(SIGN_IN_REFUSALS[reason]);
  }
}

/** Who signed in at the provider, as a session records it. */
export interface FederatedLogin {
  userId: string;
  connection: string;
  amr: string[];
}

/** The provider's answer at `/login/callback` (query or form post). */
export interface UpstreamAnswer {
  code?: string | undefined;
  id_token?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

export interface UpstreamLoginDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  transactions: LoginTransactions;
  client: UpstreamClient;
  users: FederatedUsers;
  saml: SamlServiceProvider;
  /** Opens the sealed upstream credentials of a stored connection. */
  connectionSecrets: ConnectionSecrets;
  /** Outside production, providers on http: URLs (the developer's machine) are allowed. */
  allowHttp: boolean;
}

/**
 * Login through an upstream OpenID Connect or OAuth 2.0 provider (`/authorize?connection=<name>`): the login
 * transaction remembers a nonce and a PKCE verifier and is named by the upstream `state`; at
 * `/login/callback` (in the browser that holds the transaction's cookie) the answer is checked, the user
 * signed in, and the original authorization request answered.
 */
export function upstreamLogin(deps: UpstreamLoginDeps) {
  const redirectUri = `${deps.issuer}/login/callback`;

  function settingsFor(connection: ConnectionData): UpstreamSettings {
    const { settings, problems } = upstreamSettings(deps.connectionSecrets.open(connection), deps.allowHttp);
    if (!settings) throw new InvalidRequest(`The connection '${connection.name}' is not configured: ${problems.join('; ')}.`);
    return settings;
  }

  function samlSettingsFor(connection: ConnectionData): SamlSettings {
    const { settings, problems } = samlSettings(connection, deps.allowHttp);
    if (!settings) throw new InvalidRequest(`The connection '${connection.name}' is not configured: ${problems.join('; ')}.`);
    return settings;
  }

  /** Checks a posted SAML response for the connection and signs its user in. */
  async function samlSignIn(connection: ConnectionData, settings: SamlSettings, samlResponse: string, expectedRequestId: string | undefined, ip: string | undefined): Promise<FederatedLogin> {
    let claims;
    try {
      claims = await deps.saml.validate(connection.name, settings, samlResponse, expectedRequestId);
    } catch (error) {
      if (error instanceof SamlRefused) throw new AccessDenied(error.message);
      throw error;
    }
    const outcome = await deps.users.signIn(connection, claims, {}, ip);
    if (!outcome.ok) throw new FederatedUserRefused(outcome.reason);
    return { userId: outcome.userId, connection: connection.name, amr: ['fed'] };
  }

  async function samlConnection(name: string): Promise<ConnectionData> {
    const record = await deps.storage.connections.findOne(deps.tenantId, { name });
    if (!record || record.data.strategy !== 'samlp') throw new InvalidRequest(`There is no SAML connection named '${name}'.`);
    return record.data;
  }

  return {
    redirectUri,

    /** Whether the connection is one whose login happens at another provider (OpenID Connect, OAuth 2.0, SAML). */
    isFederated: (connection: ConnectionData) => isUpstream(connection) || connection.strategy === 'samlp',

    /**
     * Whether the connection can never sign anyone in silently (`prompt=none`): one without credentials of its
     * own counts as using development keys. A misconfigured connection is refused here, before any redirect.
     */
    silentLoginImpossible(connection: ConnectionData): boolean {
      if (connection.strategy === 'samlp') {
        samlSettingsFor(connection);
        return false;
      }
      return usesDevelopmentKeys(settingsFor(connection));
    },

    /** Starts the login at the provider: the transaction remembers what the answer must match. */
    async begin(handle: string, transaction: LoginTransaction, connection: ConnectionData): Promise<AuthorizationAnswer> {
      if (connection.strategy === 'samlp') {
        const { answer, requestId } = await deps.saml.begin(connection.name, samlSettingsFor(connection), transaction.publicId);
        await deps.transactions.save(handle, { ...transaction, upstream: { connection: connection.name, samlRequestId: requestId } });
        return answer;
      }
      return { kind: 'redirect', location: await beginOidc(handle, transaction, connection, settingsFor(connection)) };
    },

    /** A SAML response to a login this browser started (service-provider-initiated); `ip` is the browser's. */
    async finishSaml(transaction: LoginTransaction, connectionName: string, samlResponse: string, ip?: string): Promise<FederatedLogin> {
      const pending = transaction.upstream;
      if (!pending || !('samlRequestId' in pending) || pending.connection !== connectionName) throw new AccessDenied('This login did not go to this SAML identity provider.');
      const connection = await samlConnection(connectionName);
      if (!connection.enabled_clients.includes(transaction.request.clientId)) throw new AccessDenied(`The connection '${connectionName}' is no longer enabled for this application.`);
      return samlSignIn(connection, samlSettingsFor(connection), samlResponse, pending.samlRequestId, ip);
    },

    /**
     * An identity-provider-initiated sign-on: accepted only when the connection allows it, for its default
     * application, which must have the connection enabled. Answers the user and how to ask `/authorize`.
     */
    async idpInitiatedSaml(connectionName: string, samlResponse: string, ip?: string): Promise<{ user: FederatedLogin; authorize: Record<string, string> }> {
      const connection = await samlConnection(connectionName);
      const settings = samlSettingsFor(connection);
      const idp: IdpInitiated = settings.idpInitiated;
      if (!idp.enabled || !idp.clientId) throw new AccessDenied(`The connection '${connectionName}' does not accept identity-provider-initiated sign-on.`);
      if (!connection.enabled_clients.includes(idp.clientId)) throw new AccessDenied(`The connection '${connectionName}' is not enabled for its default application.`);
      const user = await samlSignIn(connection, settings, samlResponse, undefined, ip);
      const query = Object.fromEntries(new URLSearchParams(idp.clientAuthorizeQuery));
      return { user, authorize: { response_type: 'code', ...query, client_id: idp.clientId, connection: connectionName } };
    },

    /**
     * Whom an identity-provider-initiated response was for, as its connection says: the SAML connection's name and
     * its default application, when it names one. Undefined when there is no such SAML connection. A refused
     * response is logged with them (the refusal itself does not say how far the checks got).
     */
    async idpInitiatedTarget(connectionName: string): Promise<{ connection: string; clientId?: string } | undefined> {
      const record = await deps.storage.connections.findOne(deps.tenantId, { name: connectionName });
      if (!record || record.data.strategy !== 'samlp') return undefined;
      const clientId = samlSettings(record.data, deps.allowHttp).settings?.idpInitiated.clientId;
      return clientId === undefined ? { connection: record.data.name } : { connection: record.data.name, clientId };
    },

    /** The service-provider metadata of a SAML connection. */
    async samlMetadata(connectionName: string): Promise<string> {
      const connection = await samlConnection(connectionName);
      return deps.saml.metadata(connectionName, samlSettingsFor(connection));
    },

    /** Checks the provider's answer and signs the user in; every refusal is `access_denied` for the application. */
    async finish(transaction: LoginTransaction, answer: UpstreamAnswer, ip?: string): Promise<FederatedLogin> {
      const pending = transaction.upstream;
      if (!pending || !('nonce' in pending)) throw new InvalidRequest('This login did not go to an OpenID Connect or OAuth 2.0 provider.');
      if (answer.error !== undefined) throw new AccessDenied(`The identity provider answered ${answer.error}${answer.error_description ? `: ${answer.error_description}` : ''}.`);
      const record = await deps.storage.connections.findOne(deps.tenantId, { name: pending.connection });
      if (!record?.data.enabled_clients.includes(transaction.request.clientId)) throw new AccessDenied(`The connection '${pending.connection}' is no longer enabled for this application.`);
      const connection = record.data;
      const settings = settingsFor(connection);
      let claims: Record<string, unknown>;
      try {
        const endpoints = await deps.client.endpoints(settings);
        if (settings.type === 'front_channel') {
          if (!answer.id_token) throw new UpstreamError('The identity provider sent no ID token.');
          claims = await deps.client.verifyIdToken(settings, endpoints, answer.id_token, pending.nonce);
        } else {
          if (!answer.code) throw new UpstreamError('The identity provider sent no authorization code.');
          // For OpenID Connect the exchange also checks the ID token (signature, issuer, audience, nonce, times).
          const tokens = await deps.client.exchange(settings, endpoints, { code: answer.code, redirectUri, codeVerifier: pending.codeVerifier, nonce: pending.nonce });
          if (settings.kind === 'oidc') {
            if (!tokens.idTokenClaims) throw new UpstreamError('The identity provider answered the code without an ID token.');
            claims = tokens.idTokenClaims;
            // Providers may keep profile claims out of the ID token (they answer them at userinfo).
            if (endpoints.userinfoEndpoint) {
              const profile = await deps.client.profile(settings, endpoints, tokens.accessToken);
              if (profile.sub === claims.sub) claims = { ...profile, ...claims };
            }
          } else {
            claims = await deps.client.profile(settings, endpoints, tokens.accessToken);
          }
        }
      } catch (error) {
        if (error instanceof UpstreamError) throw new AccessDenied(error.message);
        throw error;
      }
      const outcome = await deps.users.signIn(connection, claims, settings.mapping, ip);
      if (!outcome.ok) throw new FederatedUserRefused(outcome.reason);
      return { userId: outcome.userId, connection: connection.name, amr: ['fed'] };
    },
  };

  /** Remembers the nonce and verifier in the transaction and answers where to send the browser. */
  async function beginOidc(handle: string, transaction: LoginTransaction, connection: ConnectionData, settings: UpstreamSettings): Promise<string> {
    if (settings.clientId === undefined || (settings.type === 'back_channel' && settings.clientSecret === undefined)) {
      throw new InvalidRequest(`The connection '${connection.name}' has no client credentials of its own: set options.client_id and options.client_secret.`);
    }
    const pending: UpstreamPending = { connection: connection.name, nonce: randomBytes(24).toString('base64url'), codeVerifier: randomBytes(48).toString('base64url') };
    await deps.transactions.save(handle, { ...transaction, upstream: pending });
    let endpoints;
    try {
      endpoints = await deps.client.endpoints(settings);
    } catch (error) {
      if (error instanceof UpstreamError) throw new AccessDenied(error.message);
      throw error;
    }
    return deps.client.authorizationUrl(settings, endpoints, {
      redirectUri,
      state: transaction.publicId,
      nonce: pending.nonce,
      codeChallenge: s256(pending.codeVerifier),
      loginHint: transaction.request.loginHint,
      forceLogin: transaction.request.prompt.includes('login'),
    });
  }
}

export type UpstreamLogin = ReturnType<typeof upstreamLogin>;

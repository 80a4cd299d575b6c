import type { Storage } from '../../storage/storage.js';
import type { AuthenticatedClient } from '../client-auth.js';
import type { OAuthConfig } from '../../services/config-cache.js';
import type { DatabaseLogin } from '../../services/database-login.js';
import type { Passwordless } from '../../services/passwordless.js';
import type { LogEventType, NewLogEvent, RequestOrigin } from '../../services/events/event.js';
import type { EventRecorder } from '../../services/events/recorder.js';
import type { SignInPipeline } from '../sign-in-pipeline.js';
import type { CredentialsExchangeActions } from '../credentials-exchange-actions.js';
import type { TokenIssuer } from '../tokens.js';
import type { UserTokens } from '../user-tokens.js';
import type { Authenticators } from '../../services/mfa/authenticators.js';
import type { LoginProtection } from '../../services/login-protection.js';
import type { MfaApi } from '../mfa/mfa-api.js';
import type { MfaTokens } from '../mfa/mfa-tokens.js';

/** What a grant sees: its declared parameters (others are dropped), the authenticated client, and services. */
export interface GrantContext {
  params: Readonly<Record<string, string | undefined>>;
  client: AuthenticatedClient;
  tenantId: string;
  storage: Storage;
  /** Cached clients, APIs and client grants. */
  config: OAuthConfig;
  tokens: TokenIssuer;
  /** The client's IP address (attack protection counts failures per address). */
  ip: string;
  /** The request's User-Agent (logged with its events). */
  userAgent: string | undefined;
  /** Address, User-Agent and what Actions show of the request. */
  origin: RequestOrigin;
  /**
   * Records the grant's success event (`events.succeeded`), with what only the grant knows (the user, the API):
   * grants that sign a user in record through the sign-in pipeline instead.
   */
  exchanged(fields?: Pick<NewLogEvent, 'user_id' | 'connection' | 'audience' | 'scope'>): void;
  /** What the user grants (code, refresh, password) need besides. */
  users: UserGrantServices;
  /** The tenant's credentials-exchange Actions (the client-credentials grant runs them). */
  credentialsExchange: CredentialsExchangeActions;
}

export interface UserGrantServices {
  userTokens: UserTokens;
  databaseLogin: DatabaseLogin;
  passwordless: Passwordless;
  /** The stages every sign-in passes after its credentials are verified. */
  signIn: SignInPipeline;
  /** The tenant log. */
  events: EventRecorder;
  /** Key of the hashes that codes and refresh tokens are stored under. */
  handleKey: Buffer;
  /** Multi-factor authentication: the tokens of sign-ins waiting for a second factor, the checks of the MFA grants. */
  mfa: {
    tokens: MfaTokens;
    api: MfaApi;
    authenticators: Authenticators;
    protection: LoginProtection;
    /** Whether a sign-in with this `amr` (and these `acr_values`) still needs a second factor. */
    required(amr: readonly string[], acrValues: string | undefined): Promise<boolean>;
  };
  now: () => Date;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
  id_token?: string;
  refresh_token?: string;
  /** The MFA recovery-code grant: the user's next recovery code. */
  recovery_code?: string;
}

export interface Grant {
  readonly grantType: string;
  /** Request parameters the grant reads, besides `grant_type` and client authentication. */
  readonly parameters: readonly string[];
  /**
   * The grant's log events: `failed` for every refusal, recorded by the token endpoint (oauth/token-request.ts);
   * `succeeded`, recorded by the grant through `context.exchanged` (absent where the sign-in pipeline records it).
   */
  readonly events: { readonly failed: LogEventType; readonly succeeded?: LogEventType };
  handle(context: GrantContext): Promise<TokenResponse>;
}

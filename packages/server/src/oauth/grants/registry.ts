import { clientCredentialsGrant } from './client-credentials.js';
import type { Grant } from './grant.js';

/** Grant types by their wire name. Later grants (authorization_code, refresh_token, …) register here. */
export const GRANTS: ReadonlyMap<string, Grant> = new Map([clientCredentialsGrant].map((grant) => [grant.grantType, grant]));

import { Authentication } from './authentication/authentication.js';
import { Management } from './management/management.js';
import { version } from './version.js';
import { WebAuth } from './web-auth/web-auth.js';

export { Authentication, Management, version, WebAuth };
export type { AuthError, Callback, LibraryError, RequestError } from './helper/errors.js';
export type { AuthResult } from './web-auth/auth-result.js';
export type { IdTokenPayload } from './web-auth/id-token.js';
export type { WebAuthOptions } from './web-auth/options.js';
export type { ManagementOptions } from './management/management.js';

export default { Authentication, Management, version, WebAuth };

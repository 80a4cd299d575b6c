/**
 * The `errorCode`s of the Management API (`{statusCode, error, message, errorCode}`), as data. Services raise
 * them on a ServiceError (services/errors.ts), the surface on a ManagementError (http/management/errors.ts);
 * both take only these keys, and docs/errors.md shows this table (http/errors-doc.ts renders it; a test
 * compares). They live here, not with the surface, because services name them too.
 */
export interface ManagementErrorEntry {
  /** The HTTP statuses it is answered with. */
  readonly statuses: readonly number[];
  /** Its messages, or when it is answered (Markdown, one table cell). */
  readonly when: string;
}

export const MANAGEMENT_ERRORS = {
  too_many_requests: {
    statuses: [429],
    when: '`Global limit has been reached` (with `Retry-After`; every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`)',
  },
  invalid_token: {
    statuses: [401],
    when:
      '`Missing authentication`; `Bad HTTP authentication header format`; `Invalid signature received for JSON Web Token validation`; `Expired token received for JSON Web Token validation`; `Invalid token`; `Revoked token` (a user\'s token whose grant was revoked) (with `WWW-Authenticate: Bearer`)',
  },
  insufficient_scope: {
    statuses: [403],
    when: '`Insufficient scope, expected any of: <scope>,<scope>`; `A current-user token may change only user_metadata.`; a current-user token that links accounts other than with `link_with`',
  },
  subject_mismatch: { statuses: [403], when: '`User to be acted on does not match subject in bearer token.` (a `current_user` token names another user)' },
  invalid_secondary_token: {
    statuses: [400],
    when: 'the `link_with` ID token is not an RS256 token of this issuer for the caller\'s application, or has expired, or the bearer token names no application',
  },
  identity_already_linked: { statuses: [409], when: 'the secondary account is linked to a user already' },
  inexistent_identity: { statuses: [404], when: 'the identity to unlink is not linked to the user' },
  invalid_query_string: {
    statuses: [400],
    when:
      '`Query validation error: \'<detail>\' on property <name> (<description>).`, or a `from` cursor that is not the next value of a previous page; on the tenant log, a `q` that does not parse or names a field that is not indexed, a `sort` other than `date:1`/`date:-1`, a page past the first 1,000 results of a search, a `from` that is not a log_id, a stats day that is not `YYYYMMDD`',
  },
  invalid_body: {
    statuses: [400],
    when:
      '`Payload validation error: \'<detail>\' on property <path> (<description>).`, `Invalid request payload JSON format`, `The JSON body is nested more than 32 levels deep.`, or a rule of the resource (e.g. `user_metadata is 20000 bytes of JSON; at most 16384 are allowed.`)',
  },
  invalid_uri: { statuses: [400], when: '`Path validation error: …` for a malformed path parameter; `Main identity cannot be removed.`' },
  payment_required: { statuses: [402], when: '`A paid subscription is required to use Advanced Customizations.`' },
  feature_disabled: { statuses: [403], when: '`This tenant does not have Advanced Customizations enabled.`' },
  forbidden: { statuses: [403], when: 'the operation is not allowed for this caller or resource; a users export\'s download link that was changed or has expired' },
  inexistent_prompt: { statuses: [404], when: '`The prompt does not exist.`' },
  inexistent_language: { statuses: [404], when: '`The language "<tag>" is not supported.` (custom texts take the platform\'s language tags, e.g. `en`, `fr-CA`, `pt-BR`)' },
  invalid_screen: { statuses: [400], when: '`The screen "<screen>" does not belong to the prompt "<prompt>".` (a rendering configuration, or a screen of custom texts)' },
  inexistent_resource: {
    statuses: [404],
    when: 'the addressed resource does not exist (resource server, client grant, signing key, log stream: `The log stream does not exist.`, a job: `The job does not exist.`, a user grant: `The grant does not exist.`, an action: `That action does not exist.`, an action version or execution, a session: `The session does not exist.`, a refresh token: `The refresh token does not exist.`, an export not finished, or the audience of a new client grant)',
  },
  inexistent_client: { statuses: [404], when: '`The client does not exist` (also when creating a client grant or a ticket for an unknown client)' },
  inexistent_log: { statuses: [404], when: '`The log event does not exist.` (`/logs/{id}`: none with that log_id, or it has passed its retention)' },
  inexistent_credential: { statuses: [404], when: '`The credential does not exist` (`/clients/{id}/credentials/{credential_id}`)' },
  inexistent_organization: { statuses: [404], when: '`No organization found by that id or name` (an organization addressed by id, or by name at `/organizations/name/{name}`)' },
  inexistent_authentication_method: { statuses: [404], when: '`The authentication method does not exist.` (`/users/{id}/authentication-methods/{method}`: none of that id for that user)' },
  inexistent_enrollment: { statuses: [404], when: '`Enrollment not found` (`/guardian/enrollments/{id}`)' },
  inexistent_role: { statuses: [404], when: '`The role does not exist.` (a role addressed, or one of the roles assigned)' },
  inexistent_user: { statuses: [404, 400], when: '`The user does not exist.` (404); `The secondary user does not exist.` when linking accounts (400)' },
  inexistent_connection: {
    statuses: [404, 400],
    when: '`The connection does not exist` (404); `The connection does not exist.` when creating a user in an unknown connection (400)',
  },
  auth0_idp_error: { statuses: [409], when: '`The user already exists.` (same e-mail or username in the connection; the platform\'s code)' },
  not_found: { statuses: [404], when: 'no such route' },
  conflict: { statuses: [409], when: 'the resource exists already (unique name, identifier, e-mail, …)' },
  credential_conflict: { statuses: [409], when: 'a credential with this `kid` exists already on the client' },
  invalid_operation: {
    statuses: [400],
    when:
      'the operation does not apply in the resource\'s state (e.g. revoking the current signing key; a tenant\'s eleventh log stream: `A tenant can have at most 10 log streams.`; deploying or testing an action whose draft failed to build; deleting an action bound to a trigger without `force=true`; changing the trigger of an action that is bound to another)',
  },
  unsupported_feature: {
    statuses: [400],
    when:
      '`Latchkey has no <family>.`: a write to a family of the platform that Latchkey does not have (rules, hooks, custom domains, forms, flows, …; see "Moving from the platform" in the README), or a setting of such a family other than its disabled state',
  },
  not_available: {
    statuses: [403],
    when: '`<feature> is not available on this tenant.`: reading a setting of the platform that Latchkey does not have and that the platform keeps for some plans (bot detection, CAPTCHA)',
  },
  unsupported_media_type: { statuses: [415], when: 'the body is not JSON' },
  payload_too_large: { statuses: [413], when: 'the body is larger than 256 KiB; a users-import file is larger than 500 KB' },
  temporarily_unavailable: {
    statuses: [503],
    when:
      '`The service is temporarily unavailable. Try again in a few seconds.`: the database is unreachable, restarting, or (SQLite) locked past the busy timeout; with `Retry-After`',
  },
  internal_error: { statuses: [500], when: 'an unexpected failure; the cause is only in the server log' },
} as const satisfies Record<string, ManagementErrorEntry>;

export type ManagementErrorCode = keyof typeof MANAGEMENT_ERRORS;

/**
 * The error codes of `/dbconnections/signup` and `/dbconnections/change_password`, as data. These keep the
 * platform's own body, `{name, code, description, statusCode}`, which the browser library turns into its error
 * object; each code has one `name` and one status, so the body is built from the entry (`dbConnectionsError`).
 * docs/errors.md shows this table (http/errors-doc.ts renders it; a test compares).
 */
export interface DbConnectionsErrorEntry {
  /** The platform's error class name, which the browser library reads. */
  readonly name: string;
  readonly status: number;
  /** When it is answered (Markdown, one table cell). */
  readonly when: string;
}

export const DBCONNECTIONS_ERRORS = {
  invalid_signup: {
    name: 'BadRequestError',
    status: 400,
    when: 'a missing or malformed field (named in `description`), an invalid e-mail address, a missing username on a connection that requires one, more than ten `user_metadata` properties',
  },
  invalid_client: { name: 'BadRequestError', status: 400, when: 'unknown `client_id`' },
  connection_not_found: { name: 'BadRequestError', status: 400, when: 'no database connection of that name is enabled for the application' },
  unauthorized: { name: 'UnauthorizedError', status: 403, when: 'the connection has `disable_signup`' },
  invalid_password: {
    name: 'PasswordStrengthError',
    status: 400,
    when: 'the password breaks the connection\'s policy; `description` is `{rules, verified}` (each rule with `code`, `message`, `format`, `verified`, `items`) and `policy` the rules as text',
  },
  password_dictionary_error: {
    name: 'PasswordDictionaryError',
    status: 400,
    when: '`password_dictionary` is on and the password is one of the 10,000 most common or in the connection\'s own list',
  },
  password_no_user_info_error: {
    name: 'PasswordNoUserInfoError',
    status: 400,
    when: '`password_no_personal_info` is on and the password contains the e-mail, its local part, the username or a name',
  },
  user_exists: { name: 'BadRequestError', status: 400, when: 'the e-mail address already has an account on the connection' },
  username_exists: { name: 'BadRequestError', status: 400, when: 'the username is taken on the connection' },
  password_leaked: { name: 'BadRequestError', status: 400, when: 'breached-password detection is on and the password is known from a data breach' },
  extensibility_error: {
    name: 'ExtensibilityError',
    status: 400,
    when: "a pre-user-registration Action denied the signup (`api.access.deny(reason, userMessage)`; `description` is the `userMessage`) or failed (`The signup was refused.`; the tenant log's `fs` has the action's error)",
  },
  too_many_attempts: {
    name: 'TooManyAttemptsError',
    status: 429,
    when: 'suspicious-IP throttling: too many signups from this address (`We have detected suspicious signup behavior and further attempts will be blocked. Please contact the administrator.`)',
  },
} as const satisfies Record<string, DbConnectionsErrorEntry>;

export type DbConnectionsErrorCode = keyof typeof DBCONNECTIONS_ERRORS;

/** The type of a failure's body with its status. */
export interface DbConnectionsError {
  status: number;
  name: string;
  code: DbConnectionsErrorCode;
  message?: string;
  description: unknown;
  policy?: string;
}

/**
 * A failure's body with its status, built from the catalogue entry. The password errors add a `message`, and a
 * weak password its `policy` (the platform's field order: message before description, policy after).
 */
export function dbConnectionsError(code: DbConnectionsErrorCode, description: unknown, message?: string, policy?: string): DbConnectionsError {
  const { name, status } = DBCONNECTIONS_ERRORS[code];
  return { status, name, code, ...(message === undefined ? {} : { message }), description, ...(policy === undefined ? {} : { policy }) };
}

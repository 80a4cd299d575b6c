/**
 * The tenant log's events, in the platform's shape (`GET /api/v2/logs` answers them as they are stored), and the
 * catalogue of the event types Latchkey records: the platform's codes, each with its name and the log-stream
 * filter category it belongs to (the platform files every code under one category: `auth.login.success`,
 * `management.fail`, `other`...).
 */

/** One event. Only `log_id`, `date` and `type` are always there; the rest where the event has them. */
export interface LogEvent {
  /** Assigned when the event is stored: fixed-width digits whose text order is the order events were stored in. */
  log_id: string;
  /** ISO 8601: when it happened (not when it was written). */
  date: string;
  type: LogEventType;
  description?: string;
  client_id?: string;
  client_name?: string;
  connection?: string;
  connection_id?: string;
  strategy?: string;
  /** `database`, `passwordless`, `social` or `enterprise` (from `strategy`). */
  strategy_type?: string;
  ip?: string;
  user_agent?: string;
  user_id?: string;
  /** The e-mail address or username the user signed in with (or tried to). */
  user_name?: string;
  /** The issuer's host name. */
  hostname?: string;
  audience?: string;
  scope?: string;
  /** Event-specific facts: never a password, code, token, secret or ticket (the recorder redacts such keys). */
  details?: Record<string, unknown>;
}

/** What a producer hands the recorder: the recorder adds `date` (now), `hostname` and a default description. */
export type NewLogEvent = Omit<LogEvent, 'log_id' | 'date' | 'hostname'>;

/** Where a request came from, as events record it. */
export interface RequestOrigin {
  ip: string;
  userAgent?: string | undefined;
  /** What Actions show of the request (`event.request`); never logged. */
  details?: RequestDetails | undefined;
}

/** The HTTP request as Actions' `event.request` shows it: references to what the request parsed, read only when an action runs. */
export interface RequestDetails {
  hostname: string;
  method: string;
  /** The Accept-Language header as sent. */
  acceptLanguage?: string | undefined;
  query: unknown;
  body: unknown;
}

/** The fields of an event that say where its request came from. */
export function originFields(origin: RequestOrigin | undefined): Pick<NewLogEvent, 'ip' | 'user_agent'> {
  if (!origin) return {};
  return origin.userAgent === undefined ? { ip: origin.ip } : { ip: origin.ip, user_agent: origin.userAgent };
}

/** The platform's log-stream filter categories (`filters: [{type: 'category', name}]`). */
export type LogEventCategory =
  | 'auth.login.success'
  | 'auth.login.fail'
  | 'auth.login.notification'
  | 'auth.logout.success'
  | 'auth.logout.fail'
  | 'auth.signup.success'
  | 'auth.signup.fail'
  | 'auth.silent_auth.success'
  | 'auth.silent_auth.fail'
  | 'auth.token_exchange.success'
  | 'auth.token_exchange.fail'
  | 'management.success'
  | 'management.fail'
  | 'system.notification'
  | 'user.success'
  | 'user.fail'
  | 'user.notification'
  | 'other';

export interface LogEventTypeInfo {
  /** The platform's name of the event. */
  name: string;
  /** The description an event gets when its producer gives none. */
  description: string;
  category: LogEventCategory;
}

/**
 * The codes Latchkey records, as the platform defines them (its "Log Event Type Codes" and the categories of its
 * log-stream filters). Data: the recorder, `/api/v2/logs` and the streams read it.
 */
export const LOG_EVENT_TYPES = {
  s: { name: 'Success Login', description: 'Successful login', category: 'auth.login.success' },
  f: { name: 'Failed Login', description: 'Failed login', category: 'auth.login.fail' },
  fp: { name: 'Failed Login (Incorrect Password)', description: 'Wrong email or password.', category: 'auth.login.fail' },
  fu: { name: 'Failed Login (Invalid Email/Username)', description: 'Wrong email or password.', category: 'auth.login.fail' },
  ss: { name: 'Success Signup', description: 'Successful signup', category: 'auth.signup.success' },
  fs: { name: 'Failed Signup', description: 'Failed signup', category: 'auth.signup.fail' },
  scoa: { name: 'Success Cross-Origin Authentication', description: 'Successful cross-origin authentication', category: 'auth.login.success' },
  fcoa: { name: 'Failed Cross-Origin Authentication', description: 'Failed cross-origin authentication', category: 'auth.login.fail' },
  ssa: { name: 'Success Silent Auth', description: 'Successful silent authentication', category: 'auth.silent_auth.success' },
  fsa: { name: 'Failed Silent Auth', description: 'Failed silent authentication', category: 'auth.silent_auth.fail' },
  slo: { name: 'Success Logout', description: 'User successfully logged out', category: 'auth.logout.success' },
  seacft: { name: 'Success Exchange', description: 'Authorization Code for Access Token', category: 'auth.token_exchange.success' },
  feacft: { name: 'Failed Exchange', description: 'Authorization Code for Access Token', category: 'auth.token_exchange.fail' },
  seccft: { name: 'Success Exchange', description: 'Client Credentials for Access Token', category: 'auth.token_exchange.success' },
  feccft: { name: 'Failed Exchange', description: 'Client Credentials for Access Token', category: 'auth.token_exchange.fail' },
  sepft: { name: 'Success Exchange', description: 'Password for Access Token', category: 'auth.token_exchange.success' },
  fepft: { name: 'Failed Exchange', description: 'Password for Access Token', category: 'auth.token_exchange.fail' },
  sepotpft: { name: 'Success Exchange', description: 'Passwordless OTP for Access Token', category: 'auth.token_exchange.success' },
  fepotpft: { name: 'Failed Exchange', description: 'Passwordless OTP for Access Token', category: 'auth.token_exchange.fail' },
  sertft: { name: 'Success Exchange', description: 'Refresh Token for Access Token', category: 'auth.token_exchange.success' },
  fertft: { name: 'Failed Exchange', description: 'Refresh Token for Access Token', category: 'auth.token_exchange.fail' },
  ferrt: { name: 'Failed Exchange', description: 'Rotating Refresh Token reused: the grant was revoked', category: 'auth.token_exchange.fail' },
  cs: { name: 'Code Sent', description: 'Passwordless login code has been sent', category: 'user.notification' },
  cls: { name: 'Code/Link Sent', description: 'Passwordless login link has been sent', category: 'other' },
  scp: { name: 'Success Change Password', description: 'Password changed', category: 'user.success' },
  fcp: { name: 'Failed Change Password', description: 'Failed to change the password', category: 'user.fail' },
  scpr: { name: 'Success Change Password Request', description: 'Password reset e-mail requested', category: 'user.success' },
  sv: { name: 'Success Verification Email', description: 'E-mail address verified', category: 'user.success' },
  fv: { name: 'Failed Verification Email', description: 'The e-mail verification link was not valid', category: 'user.fail' },
  svr: { name: 'Success Verification Email Request', description: 'Verification e-mail sent', category: 'user.notification' },
  fvr: { name: 'Failed Verification Email Request', description: 'The verification e-mail could not be sent', category: 'user.fail' },
  du: { name: 'Deleted User', description: 'User has been deleted', category: 'user.success' },
  ublkdu: { name: 'User login block released', description: 'User block setup by anomaly detection has been released', category: 'user.notification' },
  fn: { name: 'Failed Sending Notification', description: 'A text message could not be sent', category: 'system.notification' },
  limit_wc: { name: 'Blocked Account', description: 'Blocked after too many failed logins to one account from this IP address', category: 'system.notification' },
  limit_mu: { name: 'Blocked IP Address', description: 'This IP address is throttled after too many failed logins or signups', category: 'system.notification' },
  pwd_leak: { name: 'Breached password', description: 'Login attempted with a password known from a data breach', category: 'other' },
  api_limit: { name: 'Rate Limit on API', description: 'The rate limit of the API was reached', category: 'system.notification' },
  sapi: { name: 'Success API Operation', description: 'Management API operation', category: 'management.success' },
  fapi: { name: 'Failed API Operation', description: 'Management API operation failed', category: 'management.fail' },
  feotpft: { name: 'Failed Exchange', description: 'MFA OTP for Access Token', category: 'auth.token_exchange.fail' },
  feoobft: { name: 'Failed Exchange', description: 'MFA OOB for Access Token', category: 'auth.token_exchange.fail' },
  fercft: { name: 'Failed Exchange', description: 'MFA Recovery Code for Access Token', category: 'auth.token_exchange.fail' },
  // Multi-factor authentication (the platform's Guardian codes).
  mfar: { name: 'MFA Required', description: 'Multi-factor authentication is required', category: 'auth.login.notification' },
  gd_start_enroll: { name: 'MFA Enroll started', description: 'Multi-factor enrollment started', category: 'user.notification' },
  gd_enrollment_complete: { name: 'MFA enrollment complete', description: 'Multi-factor enrollment complete', category: 'user.success' },
  gd_unenroll: { name: 'Unenroll device account', description: 'A multi-factor authenticator was removed', category: 'user.success' },
  gd_update_device_account: { name: 'Update device account', description: 'A multi-factor authenticator was changed', category: 'user.success' },
  gd_auth_succeed: { name: 'MFA Auth success', description: 'Multi-factor authentication succeeded', category: 'auth.login.success' },
  gd_auth_failed: { name: 'MFA Auth failed', description: 'Multi-factor authentication failed', category: 'auth.login.fail' },
  gd_otp_rate_limit_exceed: { name: 'Too many failures', description: 'Too many wrong multi-factor codes', category: 'auth.login.fail' },
  gd_recovery_succeed: { name: 'MFA Recovery success', description: 'A recovery code was used', category: 'auth.login.success' },
  gd_recovery_failed: { name: 'MFA Recovery failed', description: 'A wrong recovery code was given', category: 'auth.login.fail' },
  gd_recovery_rate_limit_exceed: { name: 'MFA Recovery rate limit exceeded', description: 'Too many wrong recovery codes', category: 'auth.login.fail' },
  gd_send_sms: { name: 'SMS Sent', description: 'A multi-factor code was sent by text message', category: 'user.notification' },
  gd_send_email: { name: 'Email Sent', description: 'A multi-factor code was sent by e-mail', category: 'user.notification' },
  gd_send_sms_failure: { name: 'SMS sent failures', description: 'A multi-factor code could not be sent', category: 'system.notification' },
  gd_enrollment_ticket: { name: 'Enrollment ticket created', description: 'A multi-factor enrollment ticket was created', category: 'user.notification' },
} as const satisfies Record<string, LogEventTypeInfo>;

export type LogEventType = keyof typeof LOG_EVENT_TYPES;

/** The category of a code (what a stream's filters match on). */
export const categoryOf = (type: LogEventType): LogEventCategory => LOG_EVENT_TYPES[type].category;

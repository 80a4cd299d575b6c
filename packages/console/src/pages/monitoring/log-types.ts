/** A tenant log event as `/api/v2/logs` answers it. */
export interface LogEvent {
  log_id: string;
  date: string;
  type: string;
  description?: string;
  client_id?: string;
  client_name?: string;
  connection?: string;
  ip?: string;
  user_agent?: string;
  user_id?: string;
  user_name?: string;
  [field: string]: unknown;
}

/**
 * The platform's event type codes the log filter offers, with their names (the platform's "Log Event Type Codes").
 * Other codes still show in the list, by code, and can be searched with the query field.
 */
export const EVENT_TYPES: readonly { code: string; name: string }[] = [
  { code: 's', name: 'Success Login' },
  { code: 'f', name: 'Failed Login' },
  { code: 'fp', name: 'Failed Login (Incorrect Password)' },
  { code: 'fu', name: 'Failed Login (Invalid Email/Username)' },
  { code: 'ss', name: 'Success Signup' },
  { code: 'fs', name: 'Failed Signup' },
  { code: 'slo', name: 'Success Logout' },
  { code: 'ssa', name: 'Success Silent Auth' },
  { code: 'fsa', name: 'Failed Silent Auth' },
  { code: 'seacft', name: 'Success Exchange (Authorization Code)' },
  { code: 'feacft', name: 'Failed Exchange (Authorization Code)' },
  { code: 'sepft', name: 'Success Exchange (Password)' },
  { code: 'fepft', name: 'Failed Exchange (Password)' },
  { code: 'seccft', name: 'Success Exchange (Client Credentials)' },
  { code: 'feccft', name: 'Failed Exchange (Client Credentials)' },
  { code: 'sertft', name: 'Success Exchange (Refresh Token)' },
  { code: 'fertft', name: 'Failed Exchange (Refresh Token)' },
  { code: 'limit_wc', name: 'Blocked Account' },
  { code: 'limit_mu', name: 'Blocked IP Address' },
  { code: 'ublkdu', name: 'User login block released' },
  { code: 'pwd_leak', name: 'Breached password' },
  { code: 'mfar', name: 'MFA Required' },
  { code: 'gd_enrollment_complete', name: 'MFA enrollment complete' },
  { code: 'gd_auth_succeed', name: 'MFA Auth success' },
  { code: 'gd_auth_failed', name: 'MFA Auth failed' },
  { code: 'scp', name: 'Success Change Password' },
  { code: 'scpr', name: 'Success Change Password Request' },
  { code: 'sv', name: 'Success Verification Email' },
  { code: 'du', name: 'Deleted User' },
  { code: 'sapi', name: 'Success API Operation' },
  { code: 'fapi', name: 'Failed API Operation' },
  { code: 'api_limit', name: 'Rate Limit on API' },
];

const NAMES = new Map(EVENT_TYPES.map((type) => [type.code, type.name]));
export const typeName = (code: string) => NAMES.get(code) ?? code;

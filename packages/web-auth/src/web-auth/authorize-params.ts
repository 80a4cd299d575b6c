/** Options that steer the library itself and are never sent to `/authorize`. */
const LIBRARY_ONLY = new Set([
  'domain',
  'leeway',
  '_disableDeprecationWarnings',
  'popupOrigin',
  'popupOptions',
  'popupHandler',
  'appState',
  'hash',
  'timeout',
  'usePostMessage',
  'owp',
  'username',
  'email',
  'password',
  'realm',
  'verificationCode',
  'phoneNumber',
  'federated',
]);

/** Option names whose wire name is not the plain snake_case of the option. */
const WIRE_NAMES: Record<string, string> = { clientID: 'client_id' };

/** `/authorize` parameters from the library's options: camelCase to snake_case, library-only options dropped. */
export function authorizeParameters(options: Record<string, unknown>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (LIBRARY_ONLY.has(name) || name.startsWith('__') || value === undefined || value === null || value === '') continue;
    const wire = WIRE_NAMES[name] ?? name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    params[wire] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return params;
}

import { html, jsonForScript, raw, type Html } from './escape.js';
import type { PageModel } from './model.js';

/**
 * The parts of the multi-factor screens the standard page shows besides a heading and a code field: the QR code or
 * the key to type, a recovery code to record, the "remember this browser" box, the factor choices, and the WebAuthn
 * ceremony's script. Every control posts what the platform's SDK posts for the same screen (action names, fields).
 */

const textOf = (model: PageModel) => (key: string) => model.texts[key] ?? '';
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The factor names of the options screens, worded by the `authenticatorNames*` texts. */
const FACTOR_TEXT: Record<string, string> = {
  otp: 'authenticatorNamesOTP',
  sms: 'authenticatorNamesSMS',
  email: 'authenticatorNamesEmail',
  'webauthn-roaming': 'authenticatorNamesWebauthnRoaming',
  'webauthn-platform': 'authenticatorNamesWebauthnPlatform',
  'recovery-code': 'authenticatorNamesRecoveryCode',
};

const CHALLENGES = new Set(['mfa-otp-challenge', 'mfa-sms-challenge', 'mfa-email-challenge', 'mfa-webauthn-roaming-challenge', 'mfa-webauthn-platform-challenge']);
const WEBAUTHN = new Set(['mfa-webauthn-roaming-enrollment', 'mfa-webauthn-roaming-challenge', 'mfa-webauthn-platform-enrollment', 'mfa-webauthn-platform-challenge', 'passkey-enrollment']);

export const isWebAuthnScreen = (screen: string) => WEBAUTHN.has(screen);

/** What the screen shows above its form. */
export function mfaDisplay(model: PageModel): Html | undefined {
  const data = model.mfa?.data ?? {};
  switch (model.screen) {
    case 'mfa-otp-enrollment-qr':
      return html`<p class="qr"><img id="mfa-qr" src="${str(data.qr_code)}" alt="QR code" width="200" height="200"></p>`;
    case 'mfa-otp-enrollment-code':
    case 'mfa-recovery-code-enrollment':
    case 'mfa-recovery-code-challenge-new-code':
      return html`<p class="code-to-copy"><code id="mfa-text-code">${str(data.text_code)}</code></p>`;
    default:
      return undefined;
  }
}

/** Controls inside the form, after its fields and before its submit button. */
export function mfaFormControls(model: PageModel): Html | undefined {
  const t = textOf(model);
  if (CHALLENGES.has(model.screen) && model.mfa?.data.show_remember_device === true) {
    return html`<div class="field checkbox"><label><input type="checkbox" name="rememberBrowser" value="true"> ${t('rememberMeText')}</label></div>`;
  }
  if (model.screen === 'mfa-recovery-code-enrollment' || model.screen === 'mfa-recovery-code-challenge-new-code') {
    return html`<div class="field checkbox"><label><input type="checkbox" name="saved" value="on" required> ${t('checkboxText')}</label></div>`;
  }
  return undefined;
}

/** Buttons that post another `action` from the same form (choices, resend, another method, the QR/text switch). */
export function mfaActions(model: PageModel): Html | undefined {
  const t = textOf(model);
  const button = (action: string, text: string, primary = false) =>
    html`<button${primary ? '' : html` class="link"`} type="submit" name="action" value="${action}" formnovalidate>${text}</button>`;
  const parts: (Html | false | undefined)[] = [];
  if (model.screen === 'mfa-begin-enroll-options' || model.screen === 'mfa-login-options') {
    parts.push(html`<div class="factors">${(model.mfa?.factors ?? []).map((factor) => html`<button class="secondary" type="submit" name="action" value="${factor}">${t(FACTOR_TEXT[factor] ?? '') || factor}</button>`)}</div>`);
    if (model.screen === 'mfa-login-options') parts.push(button('back-action', t('backText')));
  }
  if (model.screen === 'mfa-sms-challenge' || model.screen === 'mfa-email-challenge') parts.push(html`<p class="link">${t('resendText')} ${button('resend-code', t('resendActionText'))}</p>`);
  if (model.screen === 'mfa-otp-enrollment-qr') parts.push(button('toggle-view', t('seeCodeText')));
  if (model.screen === 'mfa-otp-enrollment-code') parts.push(button('toggle-view', t('seeQrText')));
  if (model.screen === 'passkey-enrollment') parts.push(button('abort-passkey-enrollment', t('continueButtonText')));
  if (model.mfa?.canPickAnother) parts.push(html`<p class="link">${button('pick-authenticator', t('pickAuthenticatorText'))}</p>`);
  const shown = parts.filter((part): part is Html => Boolean(part));
  return shown.length > 0 ? html`${shown}` : undefined;
}

/** The WebAuthn screens' form carries the credential in a hidden field, filled by the ceremony's script. */
export function mfaHiddenFields(model: PageModel): Html | undefined {
  if (!WEBAUTHN.has(model.screen)) return undefined;
  return html`<input type="hidden" name="${model.screen === 'passkey-enrollment' ? 'passkey' : 'response'}" value="">`;
}

/**
 * The page side of a WebAuthn ceremony, shared by the MFA screens, passkey-enrollment and login-id: base64url to
 * bytes (`bytes`) and back (`text`), and a credential as the SDK posts it (`credentialJson`: base64url without
 * padding, the attestation or the assertion by what the response holds).
 */
export const CREDENTIAL_SCRIPT = `const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));
  const text = (buffer) => buffer ? btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '') : null;
  const credentialJson = (credential) => {
    const r = credential.response;
    const response = r.attestationObject
      ? { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] }
      : { clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData), signature: text(r.signature), userHandle: text(r.userHandle) };
    return JSON.stringify({ id: credential.id, rawId: text(credential.rawId), type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment, response, clientExtensionResults: credential.getClientExtensionResults() });
  };`;

/**
 * The WebAuthn screens' ceremony: the options the server chose are inline (JSON, escaped for a script), the browser
 * is asked for a credential when the button is pressed, and the answer goes back in the form's `response` field (or
 * `passkey` on passkey-enrollment) as the SDK serialises it: base64url without padding.
 */
export function mfaScript(model: PageModel): Html | undefined {
  if (!WEBAUTHN.has(model.screen)) return undefined;
  const passkey = model.mfa?.data.passkey;
  const options = passkey && typeof passkey === 'object' && !Array.isArray(passkey) ? passkey.public_key : undefined;
  if (options === undefined) return undefined;
  const create = model.screen.endsWith('-enrollment');
  const field = model.screen === 'passkey-enrollment' ? 'passkey' : 'response';
  return html`<script nonce="${model.cspNonce}">${raw(`(() => {
  const options = ${jsonForScript(options)};
  const create = ${create ? 'true' : 'false'};
  const field = ${jsonForScript(field)};
  ${CREDENTIAL_SCRIPT}
  const form = document.querySelector('form[data-webauthn]');
  form.addEventListener('submit', async (event) => {
    if (event.submitter && event.submitter.name === 'action' && event.submitter.value !== 'default') return;
    if (form.elements[field].value) return;
    event.preventDefault();
    try {
      let credential;
      if (create) {
        credential = await navigator.credentials.create({ publicKey: { ...options, challenge: bytes(options.challenge), user: { ...options.user, id: bytes(options.user.id) },
          excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: bytes(c.id) })) } });
      } else {
        credential = await navigator.credentials.get({ publicKey: { ...options, challenge: bytes(options.challenge),
          allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: bytes(c.id) })) } });
      }
      form.elements[field].value = credentialJson(credential);
    } catch (error) {
      const reported = document.createElement('input');
      reported.type = 'hidden';
      reported.name = 'action';
      reported.value = 'showError::' + JSON.stringify({ name: error.name, message: error.message });
      form.append(reported);
    }
    form.submit();
  });
})();`)}</script>`;
}

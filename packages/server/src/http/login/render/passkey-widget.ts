import { html, jsonForScript, raw, type Html } from './escape.js';
import { CREDENTIAL_SCRIPT } from './mfa-widget.js';
import type { PageModel } from './model.js';

/**
 * login-id's passkey login on the standard page: a form that posts only `passkey=<credential JSON>` (and the
 * state), as the SDK's `passkeyLogin` and `registerPasskeyAutofill` do, with the "Use a passkey" button unless
 * the connection offers passkeys by autofill only.
 */
export function passkeyLoginForm(model: PageModel): Html | undefined {
  if (!model.passkeyLogin || !model.action) return undefined;
  const button = model.passkeyLogin.challengeUi !== 'autofill';
  return html`<form method="post" action="${model.action}" data-passkey-login${button ? '' : html` hidden`}>${Object.entries(model.hidden).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<input type="hidden" name="passkey" value="">${button && html`<button class="secondary" type="submit" id="passkey-login">${model.texts.passkeyButtonText ?? ''}</button>`}</form>`;
}

/**
 * The ceremony behind it: one challenge for both ways. Where the browser offers conditional mediation (and the
 * connection asks for autofill) a discoverable credential is requested at once, and the browser lists its passkeys
 * under the identifier field (`autocomplete="username webauthn"`); the button aborts that request and asks with
 * the browser's own dialog. A cancelled dialog posts nothing, and the autofill request starts again.
 */
export function passkeyLoginScript(model: PageModel): Html | undefined {
  if (!model.passkeyLogin || !model.action) return undefined;
  const autofill = model.passkeyLogin.challengeUi !== 'button';
  return html`<script nonce="${model.cspNonce}">${raw(`(() => {
  const options = ${jsonForScript(model.passkeyLogin.publicKey)};
  const autofill = ${autofill ? 'true' : 'false'};
  ${CREDENTIAL_SCRIPT}
  const form = document.querySelector('form[data-passkey-login]');
  if (!form || !window.PublicKeyCredential) return;
  let pending;
  const ask = (mediation) => {
    if (pending) pending.abort();
    pending = new AbortController();
    const publicKey = { ...options, challenge: bytes(options.challenge), allowCredentials: [] };
    return navigator.credentials.get({ publicKey, signal: pending.signal, ...(mediation ? { mediation } : {}) });
  };
  const post = (credential) => {
    form.elements.passkey.value = credentialJson(credential);
    form.submit();
  };
  const offerAutofill = async () => {
    if (!autofill || !PublicKeyCredential.isConditionalMediationAvailable || !(await PublicKeyCredential.isConditionalMediationAvailable())) return;
    ask('conditional').then(post, () => undefined);
  };
  form.addEventListener('submit', async (event) => {
    if (form.elements.passkey.value) return;
    event.preventDefault();
    try {
      post(await ask());
    } catch (error) {
      if (error && error.name !== 'AbortError') offerAutofill();
    }
  });
  offerAutofill();
})();`)}</script>`;
}

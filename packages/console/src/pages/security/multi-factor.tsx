import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote } from '../../components.js';
import { Radios } from '../../fields.js';

interface Factor {
  name: string;
  enabled: boolean;
}

/** The platform's factor names, as an administrator knows them. */
const FACTOR_LABELS: Record<string, { label: string; hint: string }> = {
  otp: { label: 'One-time password', hint: 'Codes from an authenticator app (Google Authenticator, 1Password, …).' },
  sms: { label: 'Phone message', hint: 'Codes sent by text message or voice call.' },
  email: { label: 'E-mail', hint: 'Codes sent to the user\u2019s verified address.' },
  'webauthn-roaming': { label: 'Security key', hint: 'A FIDO2 key on USB, NFC or Bluetooth.' },
  'webauthn-platform': { label: 'Device biometrics', hint: 'The fingerprint or face unlock of the user\u2019s device.' },
  'recovery-code': { label: 'Recovery code', hint: 'A code shown once at enrollment, for when the other factor is lost.' },
  'push-notification': { label: 'Push notification', hint: 'Approval in the platform\u2019s Guardian app.' },
  duo: { label: 'Duo Security', hint: 'Duo\u2019s own app and service.' },
};
const labelOf = (name: string) => FACTOR_LABELS[name]?.label ?? name;

type Policy = 'never' | 'all-applications';
const POLICIES = [
  { value: 'never' as const, label: 'Never', hint: 'Only where an application asks (acr_values) or an Action requires it.' },
  { value: 'all-applications' as const, label: 'Always', hint: 'Every login, in every application, asks for a second factor.' },
];

/** Each factor switches on its own (PUT /guardian/factors/{name}): the change applies at once and says so. */
function Factors({ api }: PageProps) {
  const [factors, setFactors] = useState<Factor[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');

  useEffect(() => {
    api<Factor[]>('GET', '/guardian/factors').then(setFactors, setError);
  }, [api]);

  async function toggle(name: string, enabled: boolean) {
    setError(undefined);
    setStatus('');
    try {
      await api('PUT', `/guardian/factors/${encodeURIComponent(name)}`, { enabled });
      setFactors((current) => current?.map((factor) => (factor.name === name ? { ...factor, enabled } : factor)));
      setStatus(`${labelOf(name)} is ${enabled ? 'enabled' : 'disabled'}.`);
    } catch (caught) {
      setError(caught);
      // The box the administrator ticked shows the factor's state again (a new list re-renders it).
      setFactors((current) => current && [...current]);
    }
  }

  return (
    <div class="card">
      <h2 id="factors-title">Factors</h2>
      <p class="muted">What users may prove their identity with as a second factor. They choose among the enabled ones when they enroll.</p>
      {factors ? (
        <fieldset>
          <legend class="visually-hidden">Enabled factors</legend>
          {factors.map((factor) => (
            <label key={factor.name} class="choice">
              <input type="checkbox" checked={factor.enabled} onChange={(event) => void toggle(factor.name, event.currentTarget.checked)} />
              <span>
                {labelOf(factor.name)} <code>{factor.name}</code>
                {FACTOR_LABELS[factor.name] ? <small>{FACTOR_LABELS[factor.name]?.hint}</small> : null}
              </span>
            </label>
          ))}
        </fieldset>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
    </div>
  );
}

/** `/guardian/policies`: `[]` (never) or `["all-applications"]`. */
function Policy({ api }: PageProps) {
  const [policy, setPolicy] = useState<Policy | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');

  useEffect(() => {
    api<string[]>('GET', '/guardian/policies').then((policies) => setPolicy(policies.includes('all-applications') ? 'all-applications' : 'never'), setError);
  }, [api]);

  async function submit(event: Event) {
    event.preventDefault();
    setError(undefined);
    setStatus('');
    try {
      const saved = await api<string[]>('PUT', '/guardian/policies', policy === 'all-applications' ? ['all-applications'] : []);
      setStatus(saved.includes('all-applications') ? 'Saved: every login asks for a second factor.' : 'Saved: logins ask for a second factor only where required.');
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="card" aria-labelledby="policy-title" onSubmit={submit}>
      <h2 id="policy-title">Require multi-factor authentication</h2>
      {policy ? <Radios legend="Ask for a second factor" name="mfa-policy" choices={POLICIES} selected={policy} onChange={setPolicy} /> : !error ? <p aria-busy="true">Loading…</p> : null}
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={!policy}>
          Save policy
        </button>
      </div>
    </form>
  );
}

/** The phone factor's delivery, as the API reports it; the server delivers through its own SMS gateway, so this is read only. */
function PhoneDelivery({ api }: PageProps) {
  const [delivery, setDelivery] = useState<{ types: string[]; provider: string } | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    Promise.all([api<{ message_types: string[] }>('GET', '/guardian/factors/phone/message-types'), api<{ provider: string }>('GET', '/guardian/factors/phone/selected-provider')]).then(
      ([types, provider]) => setDelivery({ types: types.message_types, provider: provider.provider }),
      setError,
    );
  }, [api]);

  return (
    <div class="card">
      <h2>Phone messages</h2>
      <ErrorNote error={error} />
      {delivery ? (
        <dl>
          <div class="field">
            <dt>Message types</dt>
            <dd>{delivery.types.join(', ')}</dd>
          </div>
          <div class="field">
            <dt>Provider</dt>
            <dd>{delivery.provider}</dd>
          </div>
        </dl>
      ) : null}
      <p class="muted">Latchkey sends phone codes through the SMS gateway of its settings (LATCHKEY_SMS_URL); the provider is not chosen here.</p>
    </div>
  );
}

export function MultiFactor(props: PageProps) {
  return (
    <section>
      <h1 tabIndex={-1}>Multi-factor authentication</h1>
      <Policy {...props} />
      <Factors {...props} />
      <PhoneDelivery {...props} />
    </section>
  );
}

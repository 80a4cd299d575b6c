import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote } from '../../components.js';
import { Checks, LinesField, NumberField, Radios, type Choice } from '../../fields.js';

/** The settings as `/api/v2/attack-protection/*` answers them (and takes them back whole). */
interface BruteForce {
  enabled: boolean;
  shields: string[];
  allowlist: string[];
  mode: string;
  max_attempts: number;
}
interface Stage {
  max_attempts: number;
  rate: number;
}
interface Throttling {
  enabled: boolean;
  shields: string[];
  allowlist: string[];
  stage: { 'pre-login': Stage; 'pre-user-registration': Stage };
}
interface Breached {
  enabled: boolean;
  shields: string[];
  admin_notification_frequency: string[];
  method: string;
}

const ALLOWLIST_HINT = 'IP addresses never counted nor blocked, one a line (an office or a monitoring probe).';

/**
 * One protection's form: read with GET, saved whole with PATCH. Each has its own Save, so that a refusal names the
 * protection it belongs to and nothing else is sent with it.
 */
function ProtectionForm<T extends object>(props: {
  api: PageProps['api'];
  kind: string;
  title: string;
  intro: string;
  fields: (draft: T, change: (patch: Partial<T>) => void) => ComponentChildren;
}) {
  const { api, kind } = props;
  const path = `/attack-protection/${kind}`;
  const [draft, setDraft] = useState<T | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<T>('GET', path).then(setDraft, setError);
  }, [api, path]);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setStatus('');
    try {
      setDraft(await api<T>('PATCH', path, draft));
      setStatus('Saved.');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  const enabledId = `${kind}-enabled`;
  return (
    <form class="card" aria-labelledby={`${kind}-title`} onSubmit={submit}>
      <h2 id={`${kind}-title`}>{props.title}</h2>
      <p class="muted">{props.intro}</p>
      {draft ? (
        <>
          <label class="check" for={enabledId}>
            <input id={enabledId} type="checkbox" checked={(draft as { enabled?: boolean }).enabled === true} onChange={(event) => setDraft({ ...draft, enabled: event.currentTarget.checked })} />
            Enabled
          </label>
          {props.fields(draft, (patch) => setDraft({ ...draft, ...patch }))}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={!draft || busy}>
          Save
        </button>
      </div>
    </form>
  );
}

const BRUTE_FORCE_SHIELDS: Choice<string>[] = [
  { value: 'block', label: 'Block the account', hint: 'Logins to the account are refused (from that address) until it is unblocked or a day has passed.' },
  { value: 'user_notification', label: 'E-mail the user', hint: 'The user gets a link that lifts the block.' },
];
const MODES: Choice<string>[] = [
  { value: 'count_per_identifier_and_ip', label: 'Per account and IP address', hint: 'An attacker elsewhere cannot lock the user out.' },
  { value: 'count_per_identifier', label: 'Per account, from any address', hint: 'Stops attacks spread over many addresses, but an attacker can then lock the user out.' },
];
const THROTTLING_SHIELDS: Choice<string>[] = [
  { value: 'block', label: 'Throttle the address', hint: 'Logins and signups from it are refused until attempts come back.' },
  { value: 'admin_notification', label: 'Notify administrators' },
];
const BREACHED_SHIELDS: Choice<string>[] = [
  { value: 'block', label: 'Block the login or signup', hint: 'The user must reset the password.' },
  { value: 'user_notification', label: 'E-mail the user' },
  { value: 'admin_notification', label: 'Notify administrators' },
];
const FREQUENCIES: Choice<string>[] = ['immediately', 'daily', 'weekly', 'monthly'].map((value) => ({ value, label: value[0]?.toUpperCase() + value.slice(1) }));
const METHODS: Choice<string>[] = [
  { value: 'standard', label: 'Standard' },
  { value: 'enhanced', label: 'Enhanced' },
];

/** How many failures an address may make before throttling, and how fast it gets attempts back. */
function StageFields(props: { id: string; legend: string; stage: Stage; onChange: (stage: Stage) => void }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <NumberField
        id={`${props.id}-max`}
        label="Attempts allowed"
        hint="How many the address may make before it is throttled."
        value={props.stage.max_attempts}
        min={1}
        max={10_000}
        onChange={(max_attempts) => props.onChange({ ...props.stage, max_attempts })}
      />
      <NumberField
        id={`${props.id}-rate`}
        label="Milliseconds to regain one attempt"
        hint={`One attempt comes back every ${(props.stage.rate / 1000).toLocaleString()} seconds.`}
        value={props.stage.rate}
        min={1}
        max={864_000_000}
        onChange={(rate) => props.onChange({ ...props.stage, rate })}
      />
    </fieldset>
  );
}

export function AttackProtection({ api }: PageProps) {
  return (
    <section>
      <h1 tabIndex={-1}>Attack protection</h1>
      <ProtectionForm<BruteForce>
        api={api}
        kind="brute-force-protection"
        title="Brute-force protection"
        intro="Consecutive failed logins to one account block it. Blocks are listed and lifted under User blocks."
        fields={(draft, change) => (
          <>
            <NumberField
              id="brute-force-max"
              label="Failed logins before blocking"
              hint="Consecutive failures, 1 to 100 (the platform's default is 10)."
              value={draft.max_attempts}
              min={1}
              max={100}
              onChange={(max_attempts) => change({ max_attempts })}
            />
            <Checks legend="Response" choices={BRUTE_FORCE_SHIELDS} selected={draft.shields} onChange={(shields) => change({ shields })} />
            <Radios legend="Count failures" name="brute-force-mode" choices={MODES} selected={draft.mode} onChange={(mode) => change({ mode })} />
            <LinesField id="brute-force-allowlist" label="Allowed addresses" hint={ALLOWLIST_HINT} value={draft.allowlist} onChange={(allowlist) => change({ allowlist })} />
          </>
        )}
      />
      <ProtectionForm<Throttling>
        api={api}
        kind="suspicious-ip-throttling"
        title="Suspicious IP throttling"
        intro="Many failed logins or signups from one IP address, across accounts, throttle that address."
        fields={(draft, change) => (
          <>
            <Checks legend="Response" choices={THROTTLING_SHIELDS} selected={draft.shields} onChange={(shields) => change({ shields })} />
            <StageFields id="throttle-login" legend="Logins" stage={draft.stage['pre-login']} onChange={(stage) => change({ stage: { ...draft.stage, 'pre-login': stage } })} />
            <StageFields
              id="throttle-signup"
              legend="Signups"
              stage={draft.stage['pre-user-registration']}
              onChange={(stage) => change({ stage: { ...draft.stage, 'pre-user-registration': stage } })}
            />
            <LinesField id="throttle-allowlist" label="Allowed addresses" hint={ALLOWLIST_HINT} value={draft.allowlist} onChange={(allowlist) => change({ allowlist })} />
          </>
        )}
      />
      <ProtectionForm<Breached>
        api={api}
        kind="breached-password-detection"
        title="Breached password detection"
        intro="Logins and signups with a password known from a data breach."
        fields={(draft, change) => (
          <>
            <Checks legend="Response" choices={BREACHED_SHIELDS} selected={draft.shields} onChange={(shields) => change({ shields })} />
            <Checks
              legend="Administrator notifications"
              choices={FREQUENCIES}
              selected={draft.admin_notification_frequency}
              onChange={(admin_notification_frequency) => change({ admin_notification_frequency })}
            />
            <Radios legend="Detection" name="breached-method" choices={METHODS} selected={draft.method} onChange={(method) => change({ method })} />
          </>
        )}
      />
    </section>
  );
}

import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { SettingsCard } from '../../forms.js';
import type { Client } from '../../types.js';

type Usage = NonNullable<Client['organization_usage']>;
type Behavior = NonNullable<Client['organization_require_behavior']>;

const USAGES: { value: Usage; label: string; hint: string }[] = [
  { value: 'deny', label: 'Individuals only', hint: 'Users sign in as themselves; an organization parameter is refused.' },
  { value: 'allow', label: 'Individuals or organizations', hint: 'Users sign in as themselves or as members of an organization.' },
  { value: 'require', label: 'Organizations only', hint: 'Every sign-in is for an organization the user belongs to.' },
];

const BEHAVIORS: { value: Behavior; label: string; hint: string }[] = [
  { value: 'no_prompt', label: 'No prompt', hint: 'The application names the organization itself; without one the sign-in is refused.' },
  { value: 'pre_login_prompt', label: 'Prompt for the organization', hint: 'The login page asks for the organization’s name first.' },
  { value: 'post_login_prompt', label: 'Prompt for credentials', hint: 'Users sign in, then choose among the organizations they belong to.' },
];

/** Whether users sign in to this application as members of an organization (organization_usage) and how they pick it. */
export function OrganizationSettings({ api, client, onSaved }: { api: Api; client: Client; onSaved: (client: Client) => void }) {
  const [usage, setUsage] = useState<Usage>(client.organization_usage ?? 'deny');
  const [behavior, setBehavior] = useState<Behavior>(client.organization_require_behavior ?? 'no_prompt');
  return (
    <SettingsCard
      id="organizations"
      title="Organizations"
      saveLabel="Save organization settings"
      onSave={async () =>
        onSaved(
          await api<Client>('PATCH', `/clients/${encodeURIComponent(client.client_id)}`, {
            organization_usage: usage,
            ...(usage === 'require' ? { organization_require_behavior: behavior } : {}),
          }),
        )
      }
    >
      <fieldset>
        <legend>Type of users</legend>
        {USAGES.map((entry) => (
          <label key={entry.value} class="choice">
            <input type="radio" name="organization-usage" value={entry.value} checked={usage === entry.value} onChange={() => setUsage(entry.value)} />
            <span>
              <strong>{entry.label}</strong>
              <small>{entry.hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
      {usage === 'require' ? (
        <fieldset>
          <legend>Login flow</legend>
          {BEHAVIORS.map((entry) => (
            <label key={entry.value} class="choice">
              <input type="radio" name="organization-behavior" value={entry.value} checked={behavior === entry.value} onChange={() => setBehavior(entry.value)} />
              <span>
                <strong>{entry.label}</strong>
                <small>{entry.hint}</small>
              </span>
            </label>
          ))}
        </fieldset>
      ) : null}
    </SettingsCard>
  );
}

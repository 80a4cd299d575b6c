import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { SecondsField, SettingsCard } from '../../forms.js';
import type { Client, RefreshTokenSettings } from '../../types.js';

/** The platform's bounds: ID tokens live up to 30 days, refresh tokens up to five years. */
const ID_TOKEN = { min: 1, max: 2_592_000 };
const REFRESH = { min: 1, max: 157_788_000 };

/** What the API shows a client that never set it (Latchkey's default); the form always starts from real values. */
const DEFAULT_REFRESH: RefreshTokenSettings = {
  rotation_type: 'rotating',
  expiration_type: 'expiring',
  leeway: 0,
  token_lifetime: 2_592_000,
  infinite_token_lifetime: true,
  idle_token_lifetime: 2_592_000,
  infinite_idle_token_lifetime: false,
};

/** ID token lifetime (jwt_configuration) and refresh-token rotation and expiration (refresh_token). */
export function TokenSettings({ api, client, onSaved }: { api: Api; client: Client; onSaved: (client: Client) => void }) {
  const [idLifetime, setIdLifetime] = useState(client.jwt_configuration?.lifetime_in_seconds ?? 36_000);
  const [refresh, setRefresh] = useState<RefreshTokenSettings>(client.refresh_token ?? DEFAULT_REFRESH);
  const set = (patch: Partial<RefreshTokenSettings>) => setRefresh({ ...refresh, ...patch });
  const rotating = refresh.rotation_type === 'rotating';
  const expiring = refresh.expiration_type === 'expiring';

  return (
    <SettingsCard
      id="tokens"
      title="Tokens"
      saveLabel="Save token settings"
      onSave={async () =>
        onSaved(
          await api<Client>('PATCH', `/clients/${encodeURIComponent(client.client_id)}`, {
            jwt_configuration: { lifetime_in_seconds: idLifetime },
            refresh_token: refresh,
          }),
        )
      }
    >
      <SecondsField id="id-token-lifetime" label="ID token lifetime (seconds)" hint="How long an ID token stays valid" value={idLifetime} {...ID_TOKEN} onInput={setIdLifetime} />
      <fieldset>
        <legend>Refresh token rotation</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={rotating}
            // Rotation needs expiring tokens: turning it on makes them expire.
            onChange={(event) => set(event.currentTarget.checked ? { rotation_type: 'rotating', expiration_type: 'expiring' } : { rotation_type: 'non-rotating' })}
          />
          <span>
            Rotate refresh tokens
            <small>Each use answers a new refresh token; an old one used again revokes the whole grant (reuse detection).</small>
          </span>
        </label>
        {rotating ? (
          <SecondsField
            id="refresh-leeway"
            label="Reuse interval (seconds)"
            hint="The token just rotated away may still be used this long without counting as reuse"
            value={refresh.leeway}
            min={0}
            max={REFRESH.max}
            onInput={(leeway) => set({ leeway })}
          />
        ) : null}
      </fieldset>
      <fieldset>
        <legend>Refresh token expiration</legend>
        <label class="check">
          <input type="checkbox" checked={expiring} disabled={rotating} onChange={(event) => set({ expiration_type: event.currentTarget.checked ? 'expiring' : 'non-expiring' })} />
          <span>
            Refresh tokens expire
            <small>{rotating ? 'Always, with rotation.' : 'Off: a refresh token works until it is revoked.'}</small>
          </span>
        </label>
        {expiring ? (
          <>
            <label class="check">
              <input type="checkbox" checked={!refresh.infinite_token_lifetime} onChange={(event) => set({ infinite_token_lifetime: !event.currentTarget.checked })} />
              <span>Absolute lifetime: users sign in again after it, however active</span>
            </label>
            {!refresh.infinite_token_lifetime ? (
              <SecondsField id="refresh-lifetime" label="Absolute lifetime (seconds)" hint="From the sign-in" value={refresh.token_lifetime} {...REFRESH} onInput={(token_lifetime) => set({ token_lifetime })} />
            ) : null}
            <label class="check">
              <input type="checkbox" checked={!refresh.infinite_idle_token_lifetime} onChange={(event) => set({ infinite_idle_token_lifetime: !event.currentTarget.checked })} />
              <span>Inactivity lifetime: refresh tokens unused this long stop working</span>
            </label>
            {!refresh.infinite_idle_token_lifetime ? (
              <SecondsField
                id="refresh-idle"
                label="Inactivity lifetime (seconds)"
                hint="From the last use"
                value={refresh.idle_token_lifetime}
                {...REFRESH}
                onInput={(idle_token_lifetime) => set({ idle_token_lifetime })}
              />
            ) : null}
          </>
        ) : null}
      </fieldset>
    </SettingsCard>
  );
}

import type { Strategy } from '../../types.js';
import { CheckField, TextField } from './fields.js';

/** What a login page shows of a federated connection: its name on a button, if it has one. */
export interface General {
  displayName: string;
  showAsButton: boolean;
}

/** Only federated connections get a button on the login page; an OAuth 2.0 one always has it (a social connection). */
export const hasButtonSetting = (strategy: Strategy) => strategy === 'samlp' || strategy === 'oidc';
export const hasDisplayName = (strategy: Strategy) => strategy === 'samlp' || strategy === 'oidc' || strategy === 'oauth2';

export function GeneralFields({ strategy, general, onChange }: { strategy: Strategy; general: General; onChange: (general: General) => void }) {
  if (!hasDisplayName(strategy)) return null;
  return (
    <>
      <TextField
        id="connection-display-name"
        label="Display name"
        value={general.displayName}
        hint="The name on the login page's button; empty: the connection's name."
        onInput={(displayName) => onChange({ ...general, displayName })}
      />
      {hasButtonSetting(strategy) ? (
        <CheckField
          id="connection-show-as-button"
          label="Show a button on the login page"
          hint="Without it, applications send users to this connection by naming it (connection=…)."
          checked={general.showAsButton}
          onChange={(showAsButton) => onChange({ ...general, showAsButton })}
        />
      ) : null}
    </>
  );
}

/** The general fields as the Management API takes them; an empty display name is left out. */
export function generalToSave(strategy: Strategy, general: General): { display_name?: string; show_as_button?: boolean } {
  return {
    ...(hasDisplayName(strategy) && general.displayName.trim() ? { display_name: general.displayName.trim() } : {}),
    ...(hasButtonSetting(strategy) ? { show_as_button: general.showAsButton } : {}),
  };
}

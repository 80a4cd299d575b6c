import { lines } from '../../components.js';
import { CheckField, TextField, read, readText, wholeNumber, write, type OptionsFieldsProps } from './fields.js';

/** The server's password policies (services/password-policy.ts), with what each asks of a password. */
const POLICIES = [
  { value: 'none', label: 'None', hint: 'At least 1 character.', length: 1 },
  { value: 'low', label: 'Low', hint: 'At least 6 characters.', length: 6 },
  { value: 'fair', label: 'Fair', hint: 'At least 8 characters, with lower case, upper case and numbers.', length: 8 },
  { value: 'good', label: 'Good', hint: 'At least 8 characters, with three of: lower case, upper case, numbers, special characters.', length: 8 },
  { value: 'excellent', label: 'Excellent', hint: 'At least 10 characters, three of the four kinds, no character more than twice in a row.', length: 10 },
] as const;

const CHALLENGE_UIS = [
  { value: 'both', label: 'Button and autofill' },
  { value: 'button', label: 'Button only' },
  { value: 'autofill', label: 'Browser autofill only' },
] as const;

/** A missing or unknown policy is `good` for the server; the form shows what applies. */
function policyOf(options: OptionsFieldsProps['options']) {
  return POLICIES.find((policy) => policy.value === options.passwordPolicy) ?? POLICIES[3];
}

/** Sign-up and username settings of a database connection. */
export function DatabaseSignupFields({ options, onChange }: OptionsFieldsProps) {
  return (
    <fieldset>
      <legend>Sign-up</legend>
      <CheckField
        id="db-disable-signup"
        label="Disable sign-ups"
        hint="Only users you create (here or through the Management API) can log in."
        checked={options.disable_signup === true}
        onChange={(checked) => onChange(write(options, 'disable_signup', checked || undefined))}
      />
      <CheckField
        id="db-requires-username"
        label="Requires username"
        hint="Users choose a username besides their e-mail address, and can log in with either."
        checked={options.requires_username === true}
        onChange={(checked) => onChange(write(options, 'requires_username', checked || undefined))}
      />
    </fieldset>
  );
}

/** The password policy: strength, minimum length, common passwords and personal data. */
export function PasswordPolicyFields({ options, onChange }: OptionsFieldsProps) {
  const policy = policyOf(options);
  const dictionaryWords = read(options, 'password_dictionary.dictionary');
  return (
    <>
      <fieldset>
        <legend>Password strength</legend>
        {POLICIES.map((entry) => (
          <label key={entry.value} class="choice">
            <input type="radio" name="password-policy" value={entry.value} checked={policy.value === entry.value} onChange={() => onChange(write(options, 'passwordPolicy', entry.value))} />
            <span>
              <strong>{entry.label}</strong>
              <small>{entry.hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
      <TextField
        id="db-min-length"
        label="Minimum length"
        type="number"
        min={1}
        max={128}
        value={readText(options, 'password_complexity_options.min_length')}
        hint={`Empty: the strength's own minimum (${policy.length}). From 1 to 128 characters.`}
        onInput={(value) => onChange(write(options, 'password_complexity_options', wholeNumber(value) === undefined ? undefined : { min_length: wholeNumber(value) }))}
      />
      <fieldset>
        <legend>More rules</legend>
        <CheckField
          id="db-dictionary"
          label="Refuse common passwords"
          hint="The 10,000 most common passwords, and the words listed below."
          checked={read(options, 'password_dictionary.enable') === true}
          onChange={(checked) => onChange(write(options, 'password_dictionary.enable', checked))}
        />
        {read(options, 'password_dictionary.enable') === true ? (
          <TextField
            id="db-dictionary-words"
            label="Also refuse these words"
            rows={3}
            value={Array.isArray(dictionaryWords) ? dictionaryWords.join('\n') : ''}
            hint="One word per line, e.g. your product's name."
            onInput={(value) => onChange(write(options, 'password_dictionary.dictionary', value.split('\n')))}
          />
        ) : null}
        <CheckField
          id="db-personal-info"
          label="Refuse passwords that contain personal data"
          hint="The user's e-mail address (or its part before the @), username or names."
          checked={read(options, 'password_no_personal_info.enable') === true}
          onChange={(checked) => onChange(write(options, 'password_no_personal_info.enable', checked))}
        />
      </fieldset>
    </>
  );
}

/** Passkeys: the connection's authentication methods and how the login screen offers a passkey. */
export function PasskeyFields({ options, onChange }: OptionsFieldsProps) {
  const passkeys = read(options, 'authentication_methods.passkey.enabled') === true;
  const passwords = read(options, 'authentication_methods.password.enabled') !== false;
  const challengeUi = readText(options, 'passkey_options.challenge_ui') || 'both';
  return (
    <fieldset>
      <legend>Authentication methods</legend>
      <CheckField
        id="db-method-password"
        label="Password"
        hint="Users sign up and log in with a password."
        checked={passwords}
        onChange={(checked) => onChange(write(options, 'authentication_methods.password.enabled', checked))}
      />
      <CheckField
        id="db-method-passkey"
        label="Passkey"
        hint="Users sign up and log in with a passkey (WebAuthn) instead of a password."
        checked={passkeys}
        onChange={(checked) => onChange(write(options, 'authentication_methods.passkey.enabled', checked))}
      />
      {passkeys ? (
        <>
          <label for="db-challenge-ui">How the login screen offers passkeys</label>
          <select id="db-challenge-ui" value={challengeUi} onChange={(event) => onChange(write(options, 'passkey_options.challenge_ui', event.currentTarget.value))}>
            {CHALLENGE_UIS.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {entry.label}
              </option>
            ))}
          </select>
          <CheckField
            id="db-progressive-enrollment"
            label="Offer a passkey after a password login"
            hint="A user without a passkey is asked to create one."
            checked={read(options, 'passkey_options.progressive_enrollment_enabled') === true}
            onChange={(checked) => onChange(write(options, 'passkey_options.progressive_enrollment_enabled', checked))}
          />
        </>
      ) : null}
    </fieldset>
  );
}

/** Options as sent: dictionary words one per line, without empty lines. */
export function databaseOptionsToSave(options: OptionsFieldsProps['options']): OptionsFieldsProps['options'] {
  const words = read(options, 'password_dictionary.dictionary');
  return Array.isArray(words) ? write(options, 'password_dictionary.dictionary', lines(words.join('\n'))) : options;
}

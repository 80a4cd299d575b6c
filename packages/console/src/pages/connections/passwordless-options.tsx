import { CheckField, TextField, readText, wholeNumber, write, type OptionsFieldsProps } from './fields.js';

/** Defaults of the server (services/passwordless.ts) when a connection sets no `totp`. */
const DEFAULT_LENGTH = 6;
const DEFAULT_SECONDS = 300;

/** A passwordless connection (e-mail or SMS): sign-ups, and the one-time code's length and lifetime. */
export function PasswordlessFields({ options, onChange, strategy }: OptionsFieldsProps & { strategy: 'email' | 'sms' }) {
  const address = strategy === 'email' ? 'e-mail address' : 'phone number';
  return (
    <>
      <CheckField
        id="pl-disable-signup"
        label="Disable sign-ups"
        hint={`Only existing users of this connection get a code; an unknown ${address} is refused.`}
        checked={options.disable_signup === true}
        onChange={(checked) => onChange(write(options, 'disable_signup', checked || undefined))}
      />
      <fieldset>
        <legend>One-time code</legend>
        <TextField
          id="pl-otp-length"
          label="Code length"
          type="number"
          min={4}
          max={10}
          value={readText(options, 'totp.length')}
          hint={`Digits in each code, from 4 to 10; empty: ${DEFAULT_LENGTH}.`}
          onInput={(value) => onChange(write(options, 'totp.length', wholeNumber(value)))}
        />
        <TextField
          id="pl-otp-lifetime"
          label="Code lifetime (seconds)"
          type="number"
          min={60}
          max={86400}
          value={readText(options, 'totp.time_step')}
          hint={`How long a code (or a link) works, from 60 seconds to a day; empty: ${DEFAULT_SECONDS} seconds. A code also stops working after three wrong guesses.`}
          onInput={(value) => onChange(write(options, 'totp.time_step', wholeNumber(value)))}
        />
      </fieldset>
    </>
  );
}

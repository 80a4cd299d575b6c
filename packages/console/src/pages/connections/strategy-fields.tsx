import type { Strategy } from '../../types.js';
import { DatabaseSignupFields, PasskeyFields, PasswordPolicyFields, databaseOptionsToSave } from './database-options.js';
import { OAuth2Fields, OidcFields, SamlFields, oidcOptionsToSave } from './federated-options.js';
import type { Options, OptionsFieldsProps } from './fields.js';
import { PasswordlessFields } from './passwordless-options.js';

/** The option fields of a strategy, in the shape its server-side validation reads them. */
export function StrategyFields({ strategy, ...props }: OptionsFieldsProps & { strategy: Strategy }) {
  switch (strategy) {
    case 'auth0':
      return (
        <>
          <DatabaseSignupFields {...props} />
          <h3>Password policy</h3>
          <PasswordPolicyFields {...props} />
          <h3>Passkeys</h3>
          <PasskeyFields {...props} />
        </>
      );
    case 'email':
    case 'sms':
      return <PasswordlessFields {...props} strategy={strategy} />;
    case 'samlp':
      return <SamlFields {...props} />;
    case 'oidc':
      return <OidcFields {...props} />;
    case 'oauth2':
      return <OAuth2Fields {...props} />;
  }
}

/** The options as the form sends them (a PATCH replaces them whole, so every key is there). */
export function optionsToSave(strategy: Strategy, options: Options): Options {
  if (strategy === 'auth0') return databaseOptionsToSave(options);
  if (strategy === 'oidc') return oidcOptionsToSave(options);
  return options;
}

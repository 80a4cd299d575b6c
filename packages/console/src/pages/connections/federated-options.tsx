import { CheckField, SecretField, TextField, read, readText, write, type Options, type OptionsFieldsProps } from './fields.js';

const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const DISCOVERY = '/.well-known/openid-configuration';

/** Profile fields a SAML connection maps from attributes, and what the server reads when none is named (oauth/saml/service-provider.ts). */
const SAML_FIELDS = [
  { field: 'user_id', label: 'User ID', usual: 'the NameID' },
  { field: 'email', label: 'E-mail', usual: 'email, mail, emailaddress or the e-mail address claim, else an e-mail NameID' },
  { field: 'name', label: 'Name', usual: 'name' },
  { field: 'given_name', label: 'Given name', usual: 'given_name' },
  { field: 'family_name', label: 'Family name', usual: 'family_name' },
  { field: 'nickname', label: 'Nickname', usual: 'nickname' },
  { field: 'picture', label: 'Picture', usual: 'picture' },
] as const;

/** A text option: an empty field removes it, so the server's default applies. */
const setText = (options: Options, path: string, value: string) => write(options, path, value.trim() === '' ? undefined : value);

export function SamlFields({ options, onChange }: OptionsFieldsProps) {
  return (
    <>
      <TextField
        id="saml-sign-in"
        label="Sign-in URL"
        type="url"
        value={readText(options, 'signInEndpoint')}
        hint="The identity provider's single sign-on URL, where users are sent to log in."
        onInput={(value) => onChange(setText(options, 'signInEndpoint', value))}
      />
      <TextField
        id="saml-issuer"
        label="Identity provider entity ID"
        value={readText(options, 'issuer')}
        hint="The Issuer of its responses, as its metadata names it (entityID)."
        onInput={(value) => onChange(setText(options, 'issuer', value))}
      />
      <TextField
        id="saml-certificate"
        label="Signing certificate"
        rows={6}
        mono
        value={readText(options, 'signingCert')}
        placeholder="-----BEGIN CERTIFICATE-----"
        hint="Paste the identity provider's certificate (PEM, or its base64 body): a response signed by any other key is refused."
        onInput={(value) => onChange(setText(options, 'signingCert', value))}
      />
      <TextField
        id="saml-sign-out"
        label="Sign-out URL"
        type="url"
        value={readText(options, 'signOutEndpoint')}
        hint="Optional: the identity provider's single logout URL, kept with the connection (Latchkey does not send logout requests to it yet)."
        onInput={(value) => onChange(setText(options, 'signOutEndpoint', value))}
      />
      <label for="saml-binding">Request binding</label>
      <select id="saml-binding" value={readText(options, 'protocolBinding') || HTTP_REDIRECT} onChange={(event) => onChange(write(options, 'protocolBinding', event.currentTarget.value))}>
        <option value={HTTP_REDIRECT}>HTTP-Redirect</option>
        <option value={HTTP_POST}>HTTP-POST</option>
      </select>
      <CheckField
        id="saml-sign-requests"
        label="Sign requests"
        hint="Authentication requests are signed with the tenant's key (its certificate is in Latchkey's service provider metadata)."
        checked={options.signSAMLRequest === true}
        onChange={(checked) => onChange(write(options, 'signSAMLRequest', checked || undefined))}
      />
      <fieldset>
        <legend>Mappings</legend>
        <small>The SAML attribute each profile field is read from.</small>
        {SAML_FIELDS.map(({ field, label, usual }) => (
          <TextField
            key={field}
            id={`saml-map-${field}`}
            label={`${label} attribute`}
            value={readText(options, `fieldsMap.${field}`)}
            hint={`Empty: ${usual}.`}
            onInput={(value) => onChange(setText(options, `fieldsMap.${field}`, value))}
          />
        ))}
      </fieldset>
    </>
  );
}

/** The discovery document's URL from an issuer URL or the document's own URL, as the administrator pastes either. */
export function discoveryUrl(text: string): string | undefined {
  const trimmed = text.trim().replace(/\/+$/, '');
  if (!trimmed) return undefined;
  return trimmed.endsWith(DISCOVERY) ? trimmed : `${trimmed}${DISCOVERY}`;
}

function ClientFields(props: OptionsFieldsProps & { prefix: string }) {
  const { options, onChange, prefix } = props;
  return (
    <>
      <TextField
        id={`${prefix}-client-id`}
        label="Client ID"
        value={readText(options, 'client_id')}
        hint="The ID the provider gave Latchkey when you registered it there."
        onInput={(value) => onChange(setText(options, 'client_id', value))}
      />
      <SecretField {...props} id={`${prefix}-client-secret`} label="Client secret" path="client_secret" />
    </>
  );
}

export function OidcFields(props: OptionsFieldsProps) {
  const { options, onChange } = props;
  const type = readText(options, 'type') || 'back_channel';
  return (
    <>
      <TextField
        id="oidc-discovery"
        label="Issuer URL"
        type="url"
        value={readText(options, 'discovery_url')}
        hint={`The provider's issuer, or its discovery document (…${DISCOVERY}); Latchkey reads its endpoints and keys there.`}
        onInput={(value) => onChange(setText(options, 'discovery_url', value))}
      />
      <ClientFields {...props} prefix="oidc" />
      <fieldset>
        <legend>Type</legend>
        <label class="choice">
          <input type="radio" name="oidc-type" value="back_channel" checked={type === 'back_channel'} onChange={() => onChange(write(options, 'type', 'back_channel'))} />
          <span>
            <strong>Back channel</strong>
            <small>Authorization code with PKCE; Latchkey exchanges the code with the client secret.</small>
          </span>
        </label>
        <label class="choice">
          <input type="radio" name="oidc-type" value="front_channel" checked={type === 'front_channel'} onChange={() => onChange(write(options, 'type', 'front_channel'))} />
          <span>
            <strong>Front channel</strong>
            <small>The provider posts an ID token through the browser; no client secret is needed.</small>
          </span>
        </label>
      </fieldset>
      <TextField
        id="oidc-scope"
        label="Scopes"
        value={readText(options, 'scope')}
        placeholder="openid profile email"
        hint="Separated by spaces; must include openid. Empty: openid profile email."
        onInput={(value) => onChange(setText(options, 'scope', value))}
      />
    </>
  );
}

export function OAuth2Fields(props: OptionsFieldsProps) {
  const { options, onChange } = props;
  return (
    <>
      <TextField
        id="oauth2-authorization"
        label="Authorization URL"
        type="url"
        value={readText(options, 'authorizationURL')}
        onInput={(value) => onChange(setText(options, 'authorizationURL', value))}
      />
      <TextField id="oauth2-token" label="Token URL" type="url" value={readText(options, 'tokenURL')} onInput={(value) => onChange(setText(options, 'tokenURL', value))} />
      <TextField
        id="oauth2-profile"
        label="Profile URL"
        type="url"
        value={readText(options, 'profileURL')}
        hint="Latchkey reads the user's profile there with the access token (instead of a fetchUserProfile script, which it does not run)."
        onInput={(value) => onChange(setText(options, 'profileURL', value))}
      />
      <ClientFields {...props} prefix="oauth2" />
      <TextField id="oauth2-scope" label="Scopes" value={readText(options, 'scope')} hint="Separated by spaces, as the provider names them." onInput={(value) => onChange(setText(options, 'scope', value))} />
      <TextField
        id="oauth2-user-id"
        label="User ID field"
        value={readText(options, 'mapping.user_id')}
        placeholder="id"
        hint="The profile field that identifies the user; empty: id."
        onInput={(value) => onChange(setText(options, 'mapping.user_id', value))}
      />
    </>
  );
}

/** Options as sent: an issuer URL becomes the discovery document's. */
export function oidcOptionsToSave(options: Options): Options {
  const given = read(options, 'discovery_url');
  return typeof given === 'string' ? write(options, 'discovery_url', discoveryUrl(given)) : options;
}

import type { AlternateConnection, Json, PageModel, Tree } from './model.js';

/** A plain object without a prototype: keys from configuration and requests are data, never `__proto__` tricks. */
const tree = (): Tree => Object.create(null) as Tree;

/** The value an optional context item names, or undefined when Latchkey has nothing for it (organizations, domains). */
function configuredValue(item: string, model: PageModel): Json | undefined {
  const dynamic = (prefix: string, source: Record<string, string>) => {
    if (!item.startsWith(prefix)) return undefined;
    const key = item.slice(prefix.length);
    return Object.hasOwn(source, key) ? source[key] : undefined;
  };
  switch (item) {
    case 'client.logo_uri':
      return model.client.logo_uri;
    case 'client.description':
      return model.client.description;
    case 'tenant.name':
      return model.tenant.name;
    case 'tenant.friendly_name':
      return model.tenant.friendly_name;
    case 'tenant.logo_url':
      return model.tenant.picture_url;
    case 'tenant.enabled_locales':
      return model.tenant.enabled_locales;
    case 'branding.settings':
      return model.branding && Object.keys(model.branding).length > 0 ? (structuredClone(model.branding) as Tree) : undefined;
    case 'branding.themes.default':
      // Latchkey has no themes (the platform's /api/v2/branding/themes): the SDK reads an empty default theme.
      return {};
    case 'screen.texts':
      return { ...model.texts };
    case 'untrusted_data.submitted_form_data':
      return { ...model.values };
    case 'organization.display_name':
      return model.organization?.display_name;
    case 'organization.branding':
      return model.organization?.branding && ({ ...model.organization.branding } as Tree);
    default:
      return (
        dynamic('client.metadata.', model.client.metadata) ??
        dynamic('untrusted_data.authorization_params.', model.authorizationParams) ??
        dynamic('organization.metadata.', model.organization?.metadata ?? {})
      );
  }
}

/** A federated connection as the platform lists it in `transaction.alternate_connections` (the SDK reads these options). */
function alternateConnectionContext(connection: AlternateConnection): Tree {
  const options: Tree = { display_name: connection.displayName, show_as_button: connection.showAsButton };
  if (connection.iconUrl !== undefined) options.icon_url = connection.iconUrl;
  return { name: connection.name, strategy: connection.strategy, ...(connection.metadata ? { metadata: { ...connection.metadata } } : {}), options };
}

/** Sets `value` at a dotted path, creating the objects on the way. */
function place(target: Tree, path: readonly string[], value: Json): void {
  let node = target;
  path.slice(0, -1).forEach((key) => {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created = tree();
      node[key] = created;
      node = created;
    } else node = next;
  });
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

/**
 * `window.universal_login_context` as the platform shapes it: what every screen has (the client's id and name, the
 * prompt, the screen's name, data and links, the transaction's state, locale, errors, connection and alternate
 * (federated) connections), plus exactly
 * the optional items the rendering configuration's `context_configuration` names. Nothing else is exposed: no
 * secret, no metadata that was not asked for, no user data before the user has logged in.
 */
export function universalLoginContext(model: PageModel): Tree {
  const context = tree();
  place(context, ['client', 'id'], model.client.client_id);
  place(context, ['client', 'name'], model.client.name);
  context.organization = tree();
  if (model.organization) {
    place(context, ['organization', 'id'], model.organization.id);
    place(context, ['organization', 'name'], model.organization.name);
    place(context, ['organization', 'usage'], model.organization.usage);
  }
  place(context, ['prompt', 'name'], model.prompt);
  place(context, ['screen', 'name'], model.screen);
  if (Object.keys(model.screenData).length > 0) place(context, ['screen', 'data'], { ...model.screenData });
  for (const [key, value] of Object.entries(model.mfa?.data ?? {})) place(context, ['screen', 'data', key], value);
  if (model.passkeyLogin) place(context, ['screen', 'data', 'passkey', 'public_key'], model.passkeyLogin.publicKey);
  if (model.scopes) place(context, ['screen', 'data', 'scopes'], model.scopes.map((scope) => ({ value: scope.value, description: scope.description })));
  const links = Object.entries(model.links).filter(([name]) => name !== 'application');
  if (links.length > 0) place(context, ['screen', 'links'], Object.fromEntries(links) as Tree);
  context.tenant = tree();
  place(context, ['transaction', 'state'], model.state ?? '');
  place(context, ['transaction', 'locale'], model.locale);
  if (model.errors.length > 0) place(context, ['transaction', 'errors'], model.errors.map((error) => ({ ...error })));
  if (model.connectionContext) place(context, ['transaction', 'connection'], model.connectionContext);
  if (model.alternateConnections && model.alternateConnections.length > 0) {
    place(context, ['transaction', 'alternate_connections'], model.alternateConnections.map(alternateConnectionContext));
  }
  context.untrusted_data = tree();
  context.user = tree();
  // Only on the screens after login: no user data before the user has logged in.
  if (model.user) for (const [key, value] of Object.entries(model.user)) if (value !== undefined) place(context, ['user', key], value);
  if (model.organizations) place(context, ['user', 'organizations'], model.organizations.map((organization) => ({ ...organization }) as Tree));
  for (const item of model.renderingConfig?.context_configuration ?? []) {
    const value = configuredValue(item, model);
    if (value !== undefined) place(context, item.split('.'), value);
  }
  return context;
}

/** Reads a dotted path of the context (for `{{ path }}` in head tags). */
export function lookup(context: Tree, path: string): Json | undefined {
  let node: Json | undefined = context;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

import type { PageModel } from './model.js';
import { catalogueFor } from './texts.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Tree = { [key: string]: Json };

/** The value a context item names, or undefined when Latchkey has nothing for it (organizations, custom domains). */
function valueOf(item: string, model: PageModel): Json | undefined {
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
    case 'screen.texts': {
      const texts = catalogueFor(model.locale);
      return { ...texts.screens[model.screen], ...texts.fields, ...texts.links } as unknown as Tree;
    }
    case 'untrusted_data.submitted_form_data':
      return model.values;
    default:
      return (
        dynamic('client.metadata.', model.client.metadata) ??
        dynamic('untrusted_data.authorization_params.', model.authorizationParams)
      );
  }
}

/** Sets `value` at a dotted path, creating the objects on the way (prototype keys are plain data here). */
function place(tree: Tree, path: string[], value: Json): void {
  let node = tree;
  path.slice(0, -1).forEach((key) => {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: Tree = Object.create(null) as Tree;
      node[key] = created;
      node = created;
    } else node = next;
  });
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

/**
 * The data an advanced screen receives: what identifies the screen and its errors, plus exactly the items the
 * configuration's `context_configuration` names. Nothing else (no secrets, no other metadata) is ever exposed.
 */
export function screenContext(model: PageModel): Tree {
  const tree: Tree = Object.create(null) as Tree;
  place(tree, ['prompt', 'name'], model.prompt);
  place(tree, ['screen', 'name'], model.screen);
  place(tree, ['transaction', 'locale'], model.locale);
  if (model.errorCode) place(tree, ['transaction', 'errors'], [{ code: model.errorCode }]);
  for (const item of model.renderingConfig?.context_configuration ?? []) {
    const value = valueOf(item, model);
    if (value !== undefined) place(tree, item.split('.'), value);
  }
  return tree;
}

/** Reads a dotted path of the context (for `{{ path }}` in head tags). */
export function lookup(tree: Tree, path: string): Json | undefined {
  let node: Json | undefined = tree;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * Turns an Ajv validation error into the Management API's wording:
 * `Query validation error: '<detail>' on property <name> (<description>).`
 */
export interface AjvErrorLike {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  data?: unknown;
  parentSchema?: { description?: string };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

function detail(error: AjvErrorLike): string {
  const { params, data } = error;
  switch (error.keyword) {
    case 'type':
      return `Expected type ${String(params.type)} but found type ${typeName(data)}`;
    case 'minimum':
      return `Value ${String(data)} is less than minimum ${String(params.limit)}`;
    case 'maximum':
      return `Value ${String(data)} is greater than maximum ${String(params.limit)}`;
    case 'enum':
      return `No enum match for: ${JSON.stringify(data)}`;
    case 'const':
      return `No enum match for: ${JSON.stringify(data)}`;
    case 'additionalProperties':
      return `Additional properties not allowed: ${String(params.additionalProperty)}`;
    case 'required':
      return `Missing required property: ${String(params.missingProperty)}`;
    case 'maxProperties':
      return `Too many properties defined (${Object.keys(data ?? {}).length}), must be at most ${String(params.limit)}`;
    case 'minProperties':
      return `Too few properties defined (${Object.keys(data ?? {}).length}), must be at least ${String(params.limit)}`;
    case 'minLength':
      return `String is too short (${String(data).length} chars), minimum ${String(params.limit)}`;
    case 'maxLength':
      return `String is too long (${String(data).length} chars), maximum ${String(params.limit)}`;
    case 'minItems':
      return `Array is too short (${Array.isArray(data) ? data.length : '?'}), minimum ${String(params.limit)}`;
    case 'maxItems':
      return `Array is too long (${Array.isArray(data) ? data.length : '?'}), maximum ${String(params.limit)}`;
    case 'pattern':
      return `String does not match the required format: ${JSON.stringify(data)}`;
    case 'anyOf':
    case 'oneOf':
      return `Data does not match any schemas from '${error.keyword}'`;
    default:
      return error.message ?? 'Invalid value';
  }
}

/** `/configs/0/rendering_mode` -> `configs[0].rendering_mode`. */
function propertyName(error: AjvErrorLike): string {
  const segments = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  let name = '';
  for (const segment of segments) name += /^\d+$/.test(segment) ? `[${segment}]` : name ? `.${segment}` : segment;
  return name || '(root)';
}

/** Ajv reports every failing branch of a union; the union's own error describes the problem best. */
export function pickError(errors: readonly AjvErrorLike[]): AjvErrorLike | undefined {
  return errors.find((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf') ?? errors[0];
}

export function validationMessage(kind: 'Query' | 'Payload' | 'Path', error: AjvErrorLike, describe: (property: string) => string | undefined): string {
  const property = propertyName(error);
  const description =
    error.keyword === 'additionalProperties' ? 'unknown property' : (describe(property) ?? error.parentSchema?.description ?? undefined);
  return `${kind} validation error: '${detail(error)}' on property ${property}${description ? ` (${description})` : ''}.`;
}

import { Type } from '@sinclair/typebox';
import { NPM_PACKAGE_NAME } from '../../services/actions/action-build.js';
import { ACTION_TRIGGER_IDS } from '../../services/actions/trigger-catalogue.js';
import type { ActionTrigger } from '../../services/actions/handlers.js';
import { nullable } from './schemas.js';

/**
 * The bodies, parameters and answers of `/api/v2/actions`, in the platform's shapes (the `auth0` SDK's models:
 * Action, ActionVersion, ActionBinding, ActionTrigger, GetActionExecutionResponseContent). Answers are
 * serialised through these schemas, so a field missing here is missing on the wire.
 */

// ---- input ----

/** A supported trigger as clients send it: the id (and version) counts; what they echo from a GET is accepted too. */
const TriggerInput = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'The trigger, e.g. post-login.' }),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'The trigger version the code is written for, e.g. v3 (default: the current one).' })),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    runtimes: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 20 })),
    default_runtime: Type.Optional(Type.String({ maxLength: 32 })),
    compatible_triggers: Type.Optional(Type.Array(Type.Object({ id: Type.String({ maxLength: 64 }), version: Type.String({ maxLength: 16 }) }), { maxItems: 20 })),
    binding_policy: Type.Optional(Type.String({ maxLength: 32 })),
    url: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);

const DependencyInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 214, pattern: NPM_PACKAGE_NAME.source, description: 'An npm package installed in the modules directory (LATCHKEY_ACTIONS_MODULES_DIR).' }),
    version: Type.String({ minLength: 1, maxLength: 64, pattern: '^\\S+$', description: 'The installed version it must be, or latest.' }),
    registry_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Kept, not used: packages come from the modules directory.' })),
  },
  { additionalProperties: false },
);

const SecretInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'The name under event.secrets.' }),
    value: Type.Optional(Type.String({ maxLength: 4096, description: 'The value; without one, a secret the action has keeps its value.' })),
    updated_at: Type.Optional(Type.String({ maxLength: 64, description: 'Ignored (sent back by clients that read it).' })),
  },
  { additionalProperties: false },
);

const actionFields = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'The name of the action (unique in the tenant).' }),
  supported_triggers: Type.Array(TriggerInput, { minItems: 1, maxItems: 1, description: 'The trigger the action supports (one).' }),
  code: Type.String({ maxLength: 256 * 1024, description: 'The source code: a CommonJS module exporting the trigger\u2019s handler, e.g. exports.onExecutePostLogin.' }),
  dependencies: Type.Array(DependencyInput, { maxItems: 10, description: 'npm packages the code requires, each at the version installed in the modules directory.' }),
  runtime: Type.String({ minLength: 1, maxLength: 32, description: 'The Node runtime named by the platform, e.g. node22 (default).' }),
  secrets: Type.Array(SecretInput, { maxItems: 30, description: 'Secrets given to the code as event.secrets; the list replaces the action\u2019s secrets.' }),
  modules: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 10, description: 'Action modules: not supported (only an empty list is accepted).' }),
};

export const CreateActionBody = Type.Object(
  {
    name: actionFields.name,
    supported_triggers: actionFields.supported_triggers,
    code: Type.Optional(actionFields.code),
    dependencies: Type.Optional(actionFields.dependencies),
    runtime: Type.Optional(actionFields.runtime),
    secrets: Type.Optional(actionFields.secrets),
    modules: Type.Optional(actionFields.modules),
    deploy: Type.Optional(Type.Boolean({ description: 'Deploy the action once created (when it built).' })),
  },
  { additionalProperties: false },
);

export const UpdateActionBody = Type.Object(
  {
    name: Type.Optional(actionFields.name),
    supported_triggers: Type.Optional(actionFields.supported_triggers),
    code: Type.Optional(actionFields.code),
    dependencies: Type.Optional(actionFields.dependencies),
    runtime: Type.Optional(actionFields.runtime),
    secrets: Type.Optional(actionFields.secrets),
    modules: Type.Optional(actionFields.modules),
  },
  { additionalProperties: false },
);

export const DeployVersionBody = nullable(
  Type.Object({ update_draft: Type.Optional(Type.Boolean({ description: 'Also make the draft this version.' })) }, { additionalProperties: false }),
);

export const TestActionBody = Type.Object(
  { payload: Type.Object({}, { additionalProperties: true, description: 'The event the action runs with.' }) },
  { additionalProperties: false },
);

export const BindingsBody = nullable(Type.Object(
  {
    bindings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            ref: Type.Object(
              {
                type: Type.Optional(Type.Union([Type.Literal('action_id'), Type.Literal('action_name'), Type.Literal('binding_id')], { description: 'How value names the action.' })),
                value: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The action\u2019s id or name, or a binding\u2019s id.' })),
              },
              { additionalProperties: false },
            ),
            display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The binding\u2019s name (default: the action\u2019s).' })),
            secrets: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 30 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20, description: 'The actions the trigger runs, in order (replaces its list; absent, the list stays as it is).' },
      ),
    ),
  },
  { additionalProperties: false },
));

const paging = {
  page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page index of the results to return. First page is 0.' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Number of results per page.' })),
};

export const ListActionsQuery = Type.Object(
  {
    triggerId: Type.Optional(Type.String({ maxLength: 64, description: 'Only actions supporting this trigger.' })),
    actionName: Type.Optional(Type.String({ maxLength: 255, description: 'Only the action of this name.' })),
    deployed: Type.Optional(Type.Boolean({ description: 'Only deployed actions (true) or only actions never deployed (false).' })),
    installed: Type.Optional(Type.Boolean({ description: 'Only installed integrations (there are none) or only custom actions.' })),
    ...paging,
  },
  { additionalProperties: false },
);

export const PageQuery = Type.Object(paging, { additionalProperties: false });
export const DeleteActionQuery = Type.Object({ force: Type.Optional(Type.Boolean({ description: 'Also remove the action\u2019s bindings.' })) }, { additionalProperties: false });

const id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
export const ActionParams = Type.Object({ id: id('The action id.') });
export const VersionsParams = Type.Object({ actionId: id('The action id.') });
export const VersionParams = Type.Object({ actionId: id('The action id.'), id: id('The version id.') });
export const ExecutionParams = Type.Object({ id: id('The execution id.') });
export const TriggerParams = Type.Object({
  triggerId: Type.Unsafe<ActionTrigger>({ type: 'string', enum: [...ACTION_TRIGGER_IDS], description: 'The trigger.' }),
});

// ---- answers ----

const TriggerRef = Type.Object({ id: Type.String(), version: Type.String() });
const Dependency = Type.Object({ name: Type.String(), version: Type.String(), registry_url: Type.Optional(Type.String()) });
const Secret = Type.Object({ name: Type.String(), updated_at: Type.String() });
const ErrorEntry = Type.Object({ id: Type.String(), msg: Type.String(), url: Type.Optional(Type.String()) });

const actionBase = {
  id: Type.String(),
  name: Type.String(),
  supported_triggers: Type.Array(TriggerRef),
  all_changes_deployed: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
};
const ActionBase = Type.Object(actionBase);

const versionFields = {
  id: Type.String(),
  action_id: Type.String(),
  code: Type.String(),
  dependencies: Type.Array(Dependency),
  deployed: Type.Boolean(),
  runtime: Type.String(),
  secrets: Type.Array(Secret),
  status: Type.String(),
  number: Type.Integer(),
  built_at: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  supported_triggers: Type.Array(TriggerRef),
};
const DeployedVersion = Type.Object(versionFields);
export const ActionVersion = Type.Object({ ...versionFields, action: Type.Optional(ActionBase) });

export const Action = Type.Object({
  ...actionBase,
  code: Type.String(),
  dependencies: Type.Array(Dependency),
  runtime: Type.String(),
  status: Type.String(),
  secrets: Type.Array(Secret),
  built_at: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(ErrorEntry)),
  deployed_version: Type.Optional(DeployedVersion),
});

export const ActionBinding = Type.Object({
  id: Type.String(),
  trigger_id: Type.String(),
  display_name: Type.String(),
  action: Type.Object({ ...actionBase, deployed_version: Type.Optional(DeployedVersion) }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const ActionTriggerView = Type.Object({
  id: Type.String(),
  version: Type.String(),
  status: Type.String(),
  runtimes: Type.Array(Type.String()),
  default_runtime: Type.String(),
  compatible_triggers: Type.Array(TriggerRef),
  binding_policy: Type.String(),
});

export const ActionExecution = Type.Object({
  id: Type.String(),
  trigger_id: Type.String(),
  status: Type.String(),
  results: Type.Array(Type.Object({ action_name: Type.String(), error: Type.Optional(ErrorEntry), started_at: Type.String(), ended_at: Type.String() })),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const TestResult = Type.Object({
  payload: Type.Object({
    commands: Type.Optional(Type.Array(Type.Object({ op: Type.String(), args: Type.Array(Type.Unknown()) }))),
    error: Type.Optional(Type.Object({ name: Type.String(), message: Type.String(), stack: Type.Optional(Type.String()) })),
    logs: Type.String(),
    stats: Type.Object({ action_duration_ms: Type.Integer(), total_request_duration_ms: Type.Integer() }),
  }),
});

/** `{<key>: [...], total, page, per_page}`: the Actions lists' one shape. */
export const pageOf = (key: string, item: Parameters<typeof Type.Array>[0]) =>
  Type.Object({ [key]: Type.Array(item), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer() });

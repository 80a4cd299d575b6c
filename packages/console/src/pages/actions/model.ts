/** The Actions API's shapes (`/api/v2/actions`), as far as the console reads them. */
export interface TriggerRef {
  id: string;
  version: string;
}

export interface ActionSecret {
  name: string;
  updated_at: string;
}

export interface ActionDependency {
  name: string;
  version: string;
}

export interface ActionVersion {
  id: string;
  action_id: string;
  code: string;
  dependencies: ActionDependency[];
  deployed: boolean;
  runtime: string;
  secrets: ActionSecret[];
  number: number;
  created_at: string;
  supported_triggers: TriggerRef[];
}

export interface Action {
  id: string;
  name: string;
  supported_triggers: TriggerRef[];
  all_changes_deployed: boolean;
  created_at: string;
  updated_at: string;
  code: string;
  dependencies: ActionDependency[];
  runtime: string;
  /** `built`, or `failed` with the build's `errors` (a syntax error, a dependency that is not installed). */
  status: string;
  secrets: ActionSecret[];
  errors?: { id: string; msg: string }[];
  deployed_version?: ActionVersion;
}

export interface ActionBinding {
  id: string;
  trigger_id: string;
  display_name: string;
  action: Pick<Action, 'id' | 'name' | 'supported_triggers' | 'deployed_version'>;
}

export interface Trigger {
  id: string;
  version: string;
}

/** What `POST /actions/actions/{id}/test` answers: the `api` calls the code made, its output, or its error. */
export interface TestResult {
  payload: {
    commands?: { op: string; args: unknown[] }[];
    error?: { name: string; message: string; stack?: string };
    logs: string;
    stats: { action_duration_ms: number; total_request_duration_ms: number };
  };
}

/** One page of an Actions list: `{<key>: [...], total, page, per_page}` (these lists always carry their total). */
export type ActionsPage<Key extends string, T> = { total: number; page: number; per_page: number } & Record<Key, T[]>;

export const actionPath = (id: string) => `/actions/actions/${encodeURIComponent(id)}`;
export const triggerOf = (action: Pick<Action, 'supported_triggers'>) => action.supported_triggers[0]?.id ?? 'post-login';

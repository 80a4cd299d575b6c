/**
 * Helpers for the Actions runtime's tests: versions with fresh ids, runtimes disposed after the file, and readers
 * of an execution's outcome.
 */
import { afterAll } from 'vitest';
import type { ActionExecution } from '../../src/services/actions/execution-result.js';
import { createActionsRuntime, type ActionVersion, type ActionsRuntime } from '../../src/services/actions/runtime.js';

let versionCount = 0;
/** A new version of `actionId` (a new version id every call). */
export function version(actionId: string, code: string): ActionVersion {
  versionCount += 1;
  return { actionId, versionId: `${actionId}-v${versionCount}`, code };
}

export function commandsOf(result: ActionExecution) {
  if (!result.ok) throw new Error(`execution failed: ${result.error.kind}: ${result.error.message}`);
  return result.commands;
}

/** The claims a post-login execution set on the ID token, as an object. */
export function claimsOf(result: ActionExecution): Record<string, unknown> {
  return Object.fromEntries(commandsOf(result).filter((command) => command.op === 'idToken.setCustomClaim').map((command) => [command.args[0], command.args[1]]));
}

/** The runtimes a test file makes are disposed after it (call at the file's top level). */
export function runtimeFactory(): (options?: Parameters<typeof createActionsRuntime>[0]) => ActionsRuntime {
  const runtimes: ActionsRuntime[] = [];
  afterAll(() => runtimes.forEach((created) => created.dispose()));
  return (options = {}) => {
    const created = createActionsRuntime(options);
    runtimes.push(created);
    return created;
  };
}

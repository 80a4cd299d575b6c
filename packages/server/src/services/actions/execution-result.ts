import type { CapturedLogs } from './execution-logs.js';
import type { ApiCommand } from './handlers.js';

/**
 * Why an execution failed:
 *   - compile_error: the version's code does not parse;
 *   - missing_handler: the module does not export the handler asked for;
 *   - thrown: the module's top level or the handler threw, or the handler's promise rejected;
 *   - timeout: the execution ran past its wall-time limit;
 *   - memory_limit: the version's isolate went over its memory limit;
 *   - aborted: the version's isolate was disposed under this execution (another execution of the same version
 *     went over a limit);
 *   - invalid_result: the sandbox answered with something other than the prelude's result (a tenant that replaced
 *     intrinsics such as Object.prototype.toJSON spoils its own result).
 */
export type ActionErrorKind = 'compile_error' | 'missing_handler' | 'thrown' | 'timeout' | 'memory_limit' | 'aborted' | 'invalid_result';

export interface ActionError {
  kind: ActionErrorKind;
  message: string;
  /** For `thrown`: the error's name and stack as the tenant's code made them. */
  name?: string;
  stack?: string;
}

export type ActionExecution =
  | { ok: true; commands: ApiCommand[]; logs: CapturedLogs; durationMs: number }
  | { ok: false; error: ActionError; logs: CapturedLogs; durationMs: number };

const MAX_ERROR_TEXT = 4_096;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value.slice(0, MAX_ERROR_TEXT) : fallback);

/**
 * Reads the prelude's answer (a JSON string made inside the sandbox, so tenant-shaped): the recorded commands, or
 * an error. Only methods of the trigger's `api` are accepted as commands.
 */
export function readSandboxOutput(
  output: unknown,
  handlerName: string,
  methods: readonly string[],
  maxChars: number,
): { commands: ApiCommand[] } | { error: ActionError } {
  const invalid = (message: string) => ({ error: { kind: 'invalid_result' as const, message: `The action's result could not be read: ${message}` } });
  if (typeof output !== 'string') return invalid('not a string');
  if (output.length > maxChars) return invalid(`it is larger than ${maxChars} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return invalid('not JSON');
  }
  if (!isRecord(parsed)) return invalid('not an object');
  if (parsed.missing === true) return { error: { kind: 'missing_handler', message: `The action does not export ${handlerName}` } };
  if (isRecord(parsed.error)) {
    const { name, message, stack } = parsed.error;
    return {
      error: {
        kind: 'thrown',
        message: text(message, 'the action threw'),
        name: text(name, 'Error'),
        ...(typeof stack === 'string' ? { stack: stack.slice(0, MAX_ERROR_TEXT) } : {}),
      },
    };
  }
  if (!Array.isArray(parsed.commands)) return invalid('no commands');
  const commands: ApiCommand[] = [];
  for (const command of parsed.commands) {
    if (!isRecord(command) || typeof command.op !== 'string' || !methods.includes(command.op) || !Array.isArray(command.args)) {
      return invalid('a command that is not a call of the api');
    }
    commands.push({ op: command.op, args: command.args });
  }
  return { commands };
}

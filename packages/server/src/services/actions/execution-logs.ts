export type ConsoleLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface LogLine {
  level: ConsoleLevel;
  message: string;
}

export interface CapturedLogs {
  lines: LogLine[];
  /** Output was dropped or cut because the execution reached its bound. */
  truncated: boolean;
}

const LEVELS = new Set<string>(['log', 'info', 'warn', 'error', 'debug']);

/**
 * One execution's console output, kept on the host as it is written, so that it survives a timeout or the loss of
 * the isolate. Bounded in characters: tenant code that logs in a loop costs at most `maxChars` of memory, and
 * `add` answers false once full so that the sandbox stops sending.
 */
export class ExecutionLogs {
  private readonly lines: LogLine[] = [];
  private used = 0;
  private truncated = false;

  constructor(private readonly maxChars: number) {}

  /** Takes what the sandbox sends (copied plain values, checked here since tenant code shapes them). */
  add(level: unknown, message: unknown): boolean {
    if (typeof level !== 'string' || !LEVELS.has(level) || typeof message !== 'string') return !this.truncated;
    const room = this.maxChars - this.used;
    if (room <= 0) {
      this.truncated = true;
      return false;
    }
    const kept = message.length > room ? message.slice(0, room) : message;
    if (kept.length < message.length) this.truncated = true;
    this.lines.push({ level: level as ConsoleLevel, message: kept });
    // An empty line counts as one character: console.log() in a loop must fill the logs too.
    this.used += Math.max(1, kept.length);
    return !this.truncated;
  }

  result(): CapturedLogs {
    return { lines: [...this.lines], truncated: this.truncated };
  }
}

import { appendFile, readFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EmailMessage, SmsMessage } from './channels.js';

export type OutboxEntry = { at: string } & ({ channel: 'email'; message: EmailMessage } | { channel: 'sms'; message: SmsMessage });

/**
 * Development delivery: messages are appended to `outbox.jsonl` in the data folder (mode 0600: they hold codes
 * and links) instead of being sent, and `/dev/outbox` lists them outside production. Every node of a deployment
 * on one data folder shares the file.
 */
export function localOutbox(dataDir: string, now: () => Date = () => new Date()) {
  const file = join(dataDir, 'outbox.jsonl');
  async function add(entry: OutboxEntry) {
    mkdirSync(dataDir, { recursive: true });
    await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }
  return {
    file,
    email: (message: EmailMessage) => add({ at: now().toISOString(), channel: 'email', message }),
    sms: (message: SmsMessage) => add({ at: now().toISOString(), channel: 'sms', message }),
    /** The most recent messages first; a line that is not JSON (a torn write) is skipped. */
    async recent(limit = 50): Promise<OutboxEntry[]> {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const entries: OutboxEntry[] = [];
      for (const line of text.split('\n').reverse()) {
        if (entries.length >= limit) break;
        if (!line.trim()) continue;
        try {
          entries.push(JSON.parse(line) as OutboxEntry);
        } catch {
          // skipped
        }
      }
      return entries;
    },
  };
}

export type LocalOutbox = ReturnType<typeof localOutbox>;

import { useState } from 'preact/hooks';
import { ErrorNote, StatusNote } from '../../components.js';
import { useAction } from '../../hooks.js';
import type { User } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';

type Field = 'user_metadata' | 'app_metadata';
const FIELDS: { field: Field; hint: string }[] = [
  { field: 'user_metadata', hint: 'What the user may read and change themselves (preferences, profile extras).' },
  { field: 'app_metadata', hint: 'What only applications and administrators change (plans, flags, external ids).' },
];

const pretty = (value: Record<string, unknown> | undefined) => JSON.stringify(value ?? {}, null, 2);

/** The text as a JSON object, or why it is not one (said before anything is sent). */
function parseObject(field: Field, text: string): { value: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (error) {
    return { problem: `${field} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: `${field} must be a JSON object, such as {"plan": "pro"}.` };
  return { value: value as Record<string, unknown> };
}

/**
 * The API merges metadata one level deep, so the edited object is sent whole with every key that was removed set to
 * null: what is stored is then exactly what the administrator wrote.
 */
function replacement(before: Record<string, unknown> | undefined, after: Record<string, unknown>): Record<string, unknown> {
  const removed = Object.keys(before ?? {}).filter((key) => !(key in after));
  return { ...after, ...Object.fromEntries(removed.map((key) => [key, null])) };
}

export function MetadataEditor({ api, user, userPath, onUser }: UserSectionProps) {
  const [texts, setTexts] = useState<Record<Field, string>>({ user_metadata: pretty(user.user_metadata), app_metadata: pretty(user.app_metadata) });
  const [problems, setProblems] = useState<Partial<Record<Field, string>>>({});
  const action = useAction();

  async function save(event: Event) {
    event.preventDefault();
    action.clear();
    const parsed = FIELDS.map(({ field }) => ({ field, result: parseObject(field, texts[field]) }));
    const found = Object.fromEntries(parsed.flatMap(({ field, result }) => ('problem' in result ? [[field, result.problem]] : [])));
    setProblems(found);
    const first = parsed.find(({ result }) => 'problem' in result);
    if (first) {
      document.getElementById(first.field)?.focus();
      return;
    }
    const patch: Partial<Record<Field, Record<string, unknown>>> = {};
    for (const { field, result } of parsed) {
      if ('value' in result && JSON.stringify(result.value) !== JSON.stringify(user[field] ?? {})) patch[field] = replacement(user[field], result.value);
    }
    await action.run(async () => {
      if (Object.keys(patch).length === 0) return 'Nothing changed.';
      const updated = await api<User>('PATCH', userPath, patch);
      onUser(updated);
      setTexts({ user_metadata: pretty(updated.user_metadata), app_metadata: pretty(updated.app_metadata) });
      return 'Metadata saved.';
    });
  }

  return (
    <form class="card" onSubmit={save} aria-labelledby="metadata-title" noValidate>
      <h2 id="metadata-title">Metadata</h2>
      {FIELDS.map(({ field, hint }) => (
        <div key={field}>
          <label for={field}>{field}</label>
          <textarea
            id={field}
            class="code"
            rows={6}
            spellcheck={false}
            aria-invalid={problems[field] ? 'true' : undefined}
            aria-describedby={`${field}-hint${problems[field] ? ` ${field}-problem` : ''}`}
            value={texts[field]}
            onInput={(event) => setTexts({ ...texts, [field]: event.currentTarget.value })}
          />
          <small id={`${field}-hint`}>{hint}</small>
          {problems[field] ? (
            <p id={`${field}-problem`} class="error" role="alert">
              {problems[field]}
            </p>
          ) : null}
        </div>
      ))}
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Save metadata
        </button>
        <StatusNote status={action.status} />
      </div>
    </form>
  );
}

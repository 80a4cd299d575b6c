import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNote } from './components.js';

/**
 * A card that saves one group of settings: its own Save button, the API's refusal in words beside it, and
 * "Saved." announced once the API accepted it. `onSave` throws to refuse (an ApiError, or an Error the console
 * raised itself, such as JSON that does not parse).
 */
export function SettingsCard(props: {
  id: string;
  title: string;
  onSave: () => Promise<void>;
  children: ComponentChildren;
  saveLabel?: string;
  /** false: nothing to save yet, so no Save button. */
  canSave?: boolean;
  /** A part of another card (a framed form with a smaller heading). */
  nested?: boolean;
}) {
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      await props.onSave();
      setSaved(true);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class={props.nested ? 'subcard' : 'card'} id={props.id} onSubmit={submit} aria-labelledby={`${props.id}-title`}>
      {props.nested ? <h3 id={`${props.id}-title`}>{props.title}</h3> : <h2 id={`${props.id}-title`}>{props.title}</h2>}
      {props.children}
      <ErrorNote error={error} />
      {props.canSave !== false ? (
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {props.saveLabel ?? 'Save'}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </div>
      ) : null}
    </form>
  );
}

/** A whole number of seconds, with its hint; the browser checks the range before the API does. */
export function SecondsField(props: { id: string; label: string; hint: string; value: number; min: number; max: number; disabled?: boolean; onInput: (value: number) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="number"
        inputMode="numeric"
        required
        min={props.min}
        max={props.max}
        step={1}
        disabled={props.disabled}
        aria-describedby={`${props.id}-hint`}
        value={props.value}
        onInput={(event) => props.onInput(event.currentTarget.valueAsNumber)}
      />
      <small id={`${props.id}-hint`}>
        {props.hint} ({duration(props.value)})
      </small>
    </>
  );
}

/** Seconds in the largest unit that keeps them whole enough to read. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'not a number';
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size) {
      const count = Math.round((seconds / size) * 10) / 10;
      return `${count} ${unit}${count === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

import type { ComponentChildren } from 'preact';

/** A connection's options as the Management API holds them: each strategy reads its own keys. */
export type Options = Record<string, unknown>;

/** What every strategy's option fields get: the options being edited, the ones loaded, and the change. */
export interface OptionsFieldsProps {
  options: Options;
  /** The options as loaded (empty when creating): write-only secrets fall back to them when left blank. */
  initial: Options;
  onChange: (options: Options) => void;
}

const isObject = (value: unknown): value is Options => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value at a dotted path (`password_dictionary.enable`), or undefined. */
export function read(options: Options, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), options);
}

export const readText = (options: Options, path: string): string => {
  const value = read(options, path);
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
};

/**
 * A copy of the options with one value set at a dotted path (`undefined` removes it). Keys the console does not
 * edit stay as they were: a PATCH replaces the options whole, so they must be sent back.
 */
export function write(options: Options, path: string, value: unknown): Options {
  const [key, ...rest] = path.split('.');
  if (key === undefined) return options;
  const copy = { ...options };
  if (rest.length > 0) copy[key] = write(isObject(options[key]) ? options[key] : {}, rest.join('.'), value);
  else if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
}

/** A whole number typed in a number field, or undefined when the field is empty or not a whole number. */
export function wholeNumber(text: string): number | undefined {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

export function TextField(props: {
  id: string;
  label: string;
  hint?: ComponentChildren;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'url' | 'password' | 'number' | 'email';
  required?: boolean;
  min?: number;
  max?: number;
  placeholder?: string;
  autoComplete?: string;
  rows?: number;
  /** Monospaced, for pasted certificates and keys. */
  mono?: boolean;
}) {
  const described = props.hint ? `${props.id}-hint` : undefined;
  const common = { id: props.id, value: props.value, required: props.required, placeholder: props.placeholder, 'aria-describedby': described };
  return (
    <>
      <label for={props.id}>{props.label}</label>
      {props.rows ? (
        <textarea {...common} class={props.mono ? 'mono' : undefined} rows={props.rows} spellcheck={false} onInput={(event) => props.onInput(event.currentTarget.value)} />
      ) : (
        <input
          {...common}
          // Preact types each input type's attributes apart; these props suit every type this field takes.
          type={(props.type ?? 'text') as 'text'}
          min={props.min}
          max={props.max}
          autoComplete={props.autoComplete ?? 'off'}
          onInput={(event) => props.onInput(event.currentTarget.value)}
        />
      )}
      {props.hint ? <small id={described}>{props.hint}</small> : null}
    </>
  );
}

export function CheckField(props: { id: string; label: string; hint?: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const described = props.hint ? `${props.id}-hint` : undefined;
  return (
    <>
      <label class="check">
        <input id={props.id} type="checkbox" checked={props.checked} aria-describedby={described} onChange={(event) => props.onChange(event.currentTarget.checked)} />
        {props.label}
      </label>
      {props.hint ? (
        <small id={described} class="check-hint">
          {props.hint}
        </small>
      ) : null}
    </>
  );
}

/** A write-only secret: never shown back; left blank, the stored one is kept (it is sent back as loaded). */
export function SecretField(props: { id: string; label: string; path: string } & OptionsFieldsProps) {
  const stored = readText(props.initial, props.path);
  const typed = stored && readText(props.options, props.path) === stored ? '' : readText(props.options, props.path);
  return (
    <TextField
      id={props.id}
      label={props.label}
      type="password"
      autoComplete="new-password"
      value={typed}
      hint={stored ? 'A secret is stored. Leave this empty to keep it; it is never shown again.' : 'Kept by Latchkey and never shown again once saved.'}
      onInput={(value) => props.onChange(write(props.options, props.path, value || stored || undefined))}
    />
  );
}

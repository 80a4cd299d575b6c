import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { lines } from './components.js';

/** The pages of one area, as a second row of links below the areas (the current one marked for assistive technology). */
export function AreaNav(props: { label: string; pages: readonly { path: string; label: string }[]; current: string }) {
  return (
    <nav class="area-nav" aria-label={props.label}>
      <ul>
        {props.pages.map((page) => (
          <li key={page.path}>
            <a href={page.path} aria-current={page.path === props.current ? 'page' : undefined}>
              {page.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export interface Choice<T extends string> {
  value: T;
  label: string;
  hint?: string;
}

/** Several choices of one setting (shields, categories): checkboxes in a fieldset, the legend naming the setting. */
export function Checks<T extends string>(props: { legend: string; choices: readonly Choice<T>[]; selected: readonly T[]; onChange: (selected: T[]) => void; hint?: ComponentChildren; class?: string }) {
  const toggle = (value: T, on: boolean) => props.onChange(on ? [...props.selected, value] : props.selected.filter((entry) => entry !== value));
  return (
    <fieldset class={props.class}>
      <legend>{props.legend}</legend>
      {props.hint ? <small>{props.hint}</small> : null}
      {props.choices.map((choice) => (
        <label key={choice.value} class="choice">
          <input type="checkbox" checked={props.selected.includes(choice.value)} onChange={(event) => toggle(choice.value, event.currentTarget.checked)} />
          <span>
            {choice.label}
            {choice.hint ? <small>{choice.hint}</small> : null}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** One choice among several: radio buttons in a fieldset. */
export function Radios<T extends string>(props: { legend: string; name: string; choices: readonly Choice<T>[]; selected: T | undefined; onChange: (value: T) => void }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.choices.map((choice) => (
        <label key={choice.value} class="choice">
          <input type="radio" name={props.name} value={choice.value} checked={props.selected === choice.value} onChange={() => props.onChange(choice.value)} />
          <span>
            {choice.label}
            {choice.hint ? <small>{choice.hint}</small> : null}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * A list edited as text, one entry a line. The text is its own state: parsing it back on every keystroke would
 * swallow the new line being started.
 */
export function LinesField(props: { id: string; label: string; hint: string; value: readonly string[]; onChange: (value: string[]) => void }) {
  const [text, setText] = useState(props.value.join('\n'));
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        rows={3}
        aria-describedby={`${props.id}-hint`}
        value={text}
        onInput={(event) => {
          setText(event.currentTarget.value);
          props.onChange(lines(event.currentTarget.value));
        }}
      />
      <small id={`${props.id}-hint`}>{props.hint}</small>
    </>
  );
}

/** A whole number within bounds, labelled, with its hint. */
export function NumberField(props: { id: string; label: string; hint: string; value: number; min: number; max: number; onChange: (value: number) => void }) {
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
        aria-describedby={`${props.id}-hint`}
        value={props.value}
        onInput={(event) => props.onChange(event.currentTarget.valueAsNumber)}
      />
      <small id={`${props.id}-hint`}>{props.hint}</small>
    </>
  );
}

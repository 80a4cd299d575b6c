import { useEffect, useRef, useState } from 'preact/hooks';
import type * as EditorModule from './code-editor-view.js';
import type { MountedEditor } from './code-editor-view.js';

let loading: Promise<typeof EditorModule> | undefined;
/** One download of the editor's chunk, shared by every editor on the page. */
const loadEditor = () => (loading ??= import('./code-editor-view.js'));

/**
 * A labelled code field: a plain textarea until CodeMirror's chunk has loaded (or for good, when it cannot load),
 * then the syntax-highlighting editor with the same value. `value` is the parent's: a change from outside (a
 * rollback that replaced the draft) is written into the editor.
 */
export function CodeEditor(props: { id: string; label: string; value: string; onChange: (value: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<MountedEditor | undefined>(undefined);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const initial = useRef(props.value);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');

  useEffect(() => {
    let gone = false;
    loadEditor().then(
      ({ mountEditor }) => {
        if (gone || !host.current) return;
        editor.current = mountEditor(host.current, { value: initial.current, label: props.label, onChange: (value) => onChange.current(value) });
        setState('ready');
      },
      () => !gone && setState('failed'),
    );
    return () => {
      gone = true;
      editor.current?.destroy();
    };
  }, [props.label]);

  useEffect(() => {
    initial.current = props.value;
    editor.current?.setValue(props.value);
  }, [props.value]);

  const ready = state === 'ready';
  return (
    <div class="code-field">
      {/* Once the editor is there, the label is its name (aria-label: a label cannot point into its shadow root). */}
      <label for={ready ? undefined : props.id} onClick={() => editor.current?.focus()}>
        {props.label}
      </label>
      {!ready ? (
        <textarea id={props.id} class="code" rows={16} spellcheck={false} value={props.value} onInput={(event) => props.onChange(event.currentTarget.value)} />
      ) : null}
      <div ref={host} class="code-editor" hidden={!ready} data-testid={`${props.id}-editor`} />
      <small>
        {state === 'failed'
          ? 'The code editor could not be loaded: this plain field edits the same code.'
          : ready
            ? 'Tab indents. To leave the editor with the keyboard, press Escape, then Tab.'
            : 'Loading the code editor…'}
      </small>
    </div>
  );
}

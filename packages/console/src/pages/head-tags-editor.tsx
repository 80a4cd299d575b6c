import { lines } from '../components.js';
import type { HeadTag } from '../types.js';

/** One head tag as the form holds it: its attributes as lines of `name=value` (a bare name is a boolean attribute). */
export interface TagDraft {
  tag: string;
  attributes: string;
  content: string;
}

/** The elements the hosted pages write into their head (a `base` would redirect the login form, so it is not one). */
const ELEMENTS = ['meta', 'link', 'script', 'style', 'title', 'noscript'];

const attributeLine = ([name, value]: [string, string | number | boolean]) => (value === true ? name : `${name}=${String(value)}`);

export const tagDraftsOf = (tags: HeadTag[]): TagDraft[] =>
  tags.map((tag) => ({
    tag: tag.tag ?? 'meta',
    attributes: Object.entries(tag.attributes ?? {})
      .filter(([, value]) => value !== false)
      .map(attributeLine)
      .join('\n'),
    content: tag.content ?? '',
  }));

/** The API's head tags; an attribute line without a name is refused here, in words, before anything is sent. */
export function headTagsOf(drafts: TagDraft[]): HeadTag[] {
  return drafts.map((draft, index) => {
    const attributes: Record<string, string | boolean> = {};
    for (const line of lines(draft.attributes)) {
      const at = line.indexOf('=');
      const name = (at < 0 ? line : line.slice(0, at)).trim();
      if (!name) throw new Error(`Head tag ${index + 1}: the attribute line "${line}" has no name before its "=".`);
      attributes[name] = at < 0 ? true : line.slice(at + 1).trim();
    }
    return { tag: draft.tag, attributes, ...(draft.content ? { content: draft.content } : {}) };
  });
}

export function HeadTagsEditor(props: { tags: TagDraft[]; onChange: (tags: TagDraft[]) => void }) {
  const { tags } = props;
  const update = (index: number, change: Partial<TagDraft>) => props.onChange(tags.map((tag, at) => (at === index ? { ...tag, ...change } : tag)));
  return (
    <fieldset>
      <legend>Head tags</legend>
      <small>Written into the head of advanced pages, after the context data: the scripts and styles of your bundle. Standard pages leave them out.</small>
      {tags.map((tag, index) => (
        <div key={index} class="text-row">
          <label for={`head-tag-${index}`}>Element of head tag {index + 1}</label>
          <select id={`head-tag-${index}`} value={tag.tag} onChange={(event) => update(index, { tag: event.currentTarget.value })}>
            {ELEMENTS.map((element) => (
              <option key={element}>{element}</option>
            ))}
          </select>
          <label for={`head-tag-${index}-attributes`}>Attributes of head tag {index + 1}</label>
          <textarea
            id={`head-tag-${index}-attributes`}
            rows={3}
            aria-describedby="head-tag-attributes-hint"
            value={tag.attributes}
            onInput={(event) => update(index, { attributes: event.currentTarget.value })}
          />
          <label for={`head-tag-${index}-content`}>Content of head tag {index + 1}</label>
          <textarea id={`head-tag-${index}-content`} rows={2} value={tag.content} onInput={(event) => update(index, { content: event.currentTarget.value })} />
          <button type="button" onClick={() => props.onChange(tags.filter((_, at) => at !== index))}>
            Remove head tag {index + 1}
          </button>
        </div>
      ))}
      <small id="head-tag-attributes-hint">Attributes: one per line as name=value, or a name alone for a boolean attribute such as defer; at most 10.</small>
      <div class="actions">
        <button type="button" onClick={() => props.onChange([...tags, { tag: 'meta', attributes: '', content: '' }])}>
          Add a head tag
        </button>
      </div>
    </fieldset>
  );
}

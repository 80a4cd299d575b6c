import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ConfirmDialog, ErrorNote, lines } from '../components.js';
import type { FilterElement, HeadTag, RenderingConfig, RenderingFilters } from '../types.js';
import { HeadTagsEditor, headTagsOf, tagDraftsOf, type TagDraft } from './head-tags-editor.js';
import { PreviewCard, savedMessage } from './preview-card.js';

type MatchType = '' | 'includes_any' | 'excludes_any';
const FILTER_KINDS = [
  { field: 'clients', label: 'Applications', hint: 'client IDs' },
  { field: 'organizations', label: 'Organizations', hint: 'organization IDs' },
  { field: 'domains', label: 'Domains', hint: 'domain IDs' },
] as const;
type FilterField = (typeof FILTER_KINDS)[number]['field'];

interface Draft {
  mode: 'standard' | 'advanced';
  contextConfiguration: string;
  defaultHeadTagsDisabled: boolean;
  usePageTemplate: boolean;
  headTags: TagDraft[];
  matchType: MatchType;
  filters: Record<FilterField, string>;
}

/** A filter element as one line: its id, or `key=value` for the one metadata pair it matches. */
const elementLine = (element: FilterElement) => ('id' in element ? element.id : Object.entries(element.metadata).map(([key, value]) => `${key}=${value}`)[0] ?? '');
const elementOf = (line: string): FilterElement => {
  const at = line.indexOf('=');
  return at > 0 ? { metadata: { [line.slice(0, at).trim()]: line.slice(at + 1).trim() } } : { id: line };
};

const draftOf = (config: RenderingConfig): Draft => ({
  mode: config.rendering_mode === 'advanced' ? 'advanced' : 'standard',
  contextConfiguration: (config.context_configuration ?? []).join('\n'),
  defaultHeadTagsDisabled: config.default_head_tags_disabled === true,
  usePageTemplate: config.use_page_template === true,
  headTags: tagDraftsOf(config.head_tags ?? []),
  matchType: config.filters?.match_type ?? '',
  filters: {
    clients: (config.filters?.clients ?? []).map(elementLine).join('\n'),
    organizations: (config.filters?.organizations ?? []).map(elementLine).join('\n'),
    domains: (config.filters?.domains ?? []).map(elementLine).join('\n'),
  },
});

/** No match type means no filters (`null`): the configuration applies to every request for the screen. */
function filtersOf(draft: Draft): RenderingFilters | null {
  if (!draft.matchType) return null;
  const filters: RenderingFilters = { match_type: draft.matchType };
  for (const { field } of FILTER_KINDS) {
    const elements = lines(draft.filters[field]).map(elementOf);
    if (elements.length > 0) filters[field] = elements;
  }
  return filters;
}

const FIELDS_CLEARED = { rendering_mode: 'standard', context_configuration: null, default_head_tags_disabled: null, use_page_template: null, head_tags: null, filters: null };

/** `GET/PATCH /api/v2/prompts/{prompt}/screen/{screen}/rendering`: one screen's render settings. */
export function RenderingDetail(props: PageProps & { prompt: string; screen: string }) {
  const { api, prompt, screen } = props;
  const [draft, setDraft] = useState<Draft | undefined>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const path = `/prompts/${encodeURIComponent(prompt)}/screen/${encodeURIComponent(screen)}/rendering`;

  const load = () => api<RenderingConfig>('GET', path).then((config) => setDraft(draftOf(config)), setError);
  useEffect(() => {
    void load();
  }, [api, path]);

  async function patch(body: Record<string, unknown>) {
    setError(undefined);
    setSaved(undefined);
    try {
      await api('PATCH', path, body);
      await load();
      setSaved(savedMessage());
    } catch (caught) {
      setError(caught);
    }
  }

  function save(event: Event) {
    event.preventDefault();
    if (!draft) return;
    let headTags: HeadTag[];
    try {
      headTags = headTagsOf(draft.headTags);
    } catch (caught) {
      setError(caught);
      return;
    }
    void patch({
      rendering_mode: draft.mode,
      context_configuration: lines(draft.contextConfiguration),
      default_head_tags_disabled: draft.defaultHeadTagsDisabled,
      use_page_template: draft.usePageTemplate,
      head_tags: headTags,
      filters: filtersOf(draft),
    });
  }

  const set = (change: Partial<Draft>) => draft && setDraft({ ...draft, ...change });
  return (
    <>
      <p>
        <a href="/admin/branding/rendering">← Rendering</a>
      </p>
      <h1 tabIndex={-1}>
        {prompt} / {screen}
      </h1>
      {draft ? (
        <form class="card" onSubmit={save} aria-labelledby="rendering-title">
          <h2 id="rendering-title">Render settings</h2>
          <fieldset>
            <legend>Rendering mode</legend>
            <label class="choice">
              <input type="radio" name="mode" checked={draft.mode === 'standard'} onChange={() => set({ mode: 'standard' })} />
              <span>
                <strong>Standard</strong>
                <small>Latchkey's own page, with your branding and texts.</small>
              </span>
            </label>
            <label class="choice">
              <input type="radio" name="mode" checked={draft.mode === 'advanced'} onChange={() => set({ mode: 'advanced' })} />
              <span>
                <strong>Advanced</strong>
                <small>An empty page with the context data and your head tags: your own bundle draws the screen.</small>
              </span>
            </label>
          </fieldset>
          <label class="check">
            <input type="checkbox" checked={draft.defaultHeadTagsDisabled} onChange={(event) => set({ defaultHeadTagsDisabled: event.currentTarget.checked })} />
            Leave out Latchkey's default head tags (its stylesheet, icon and title) on advanced pages
          </label>
          <label class="check">
            <input type="checkbox" checked={draft.usePageTemplate} onChange={(event) => set({ usePageTemplate: event.currentTarget.checked })} />
            Use the tenant's page template
          </label>
          <label for="context-configuration">Context data</label>
          <textarea
            id="context-configuration"
            rows={4}
            aria-describedby="context-configuration-hint"
            value={draft.contextConfiguration}
            onInput={(event) => set({ contextConfiguration: event.currentTarget.value })}
          />
          <small id="context-configuration-hint">
            One per line: what an advanced page may read, such as <code>branding.settings</code>, <code>tenant.friendly_name</code>, <code>client.metadata.&lt;key&gt;</code> or{' '}
            <code>untrusted_data.authorization_params.ext-&lt;key&gt;</code>.
          </small>
          <HeadTagsEditor tags={draft.headTags} onChange={(headTags) => set({ headTags })} />
          <fieldset>
            <legend>Applies to</legend>
            <label for="match-type">Requests</label>
            <select id="match-type" value={draft.matchType} onChange={(event) => set({ matchType: event.currentTarget.value as MatchType })}>
              <option value="">Every request (no filters)</option>
              <option value="includes_any">Only those matching one listed below</option>
              <option value="excludes_any">All but those matching one listed below</option>
            </select>
            {draft.matchType
              ? FILTER_KINDS.map((kind) => (
                  <div key={kind.field}>
                    <label for={`filter-${kind.field}`}>{kind.label}</label>
                    <textarea
                      id={`filter-${kind.field}`}
                      rows={2}
                      aria-describedby={`filter-${kind.field}-hint`}
                      value={draft.filters[kind.field]}
                      onInput={(event) => set({ filters: { ...draft.filters, [kind.field]: event.currentTarget.value } })}
                    />
                    <small id={`filter-${kind.field}-hint`}>One per line: {kind.hint}, or key=value to match one metadata pair.</small>
                  </div>
                ))
              : null}
          </fieldset>
          <ErrorNote error={error} />
          <div class="actions">
            <button type="submit" class="primary">
              Save render settings
            </button>
            {saved ? <span role="status">{saved}</span> : null}
          </div>
        </form>
      ) : error ? (
        <ErrorNote error={error} />
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
      {draft ? (
        <div class="card danger-zone">
          <h2>Restore the defaults</h2>
          <p>The screen goes back to the standard page, without head tags, context data or filters.</p>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Restore defaults
          </button>
        </div>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={`Restore the defaults of ${screen}?`}
          confirmLabel="Restore defaults"
          onConfirm={() => {
            setConfirming(false);
            void patch(FIELDS_CLEARED);
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>Its head tags, context data and filters are removed, and users see Latchkey's standard page for this screen at once. A bundle loaded by its head tags stops loading.</p>
        </ConfirmDialog>
      ) : null}
      <PreviewCard {...props} />
    </>
  );
}

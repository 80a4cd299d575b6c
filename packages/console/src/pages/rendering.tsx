import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { PROMPT_SCREENS } from '../catalogue.js';
import { ErrorNote, Pager } from '../components.js';
import { navigate } from '../router.js';
import type { ListPage, RenderingConfig, RenderingFilters } from '../types.js';

const PER_PAGE = 25;
const PROMPTS = Object.keys(PROMPT_SCREENS);

export const renderingPath = (prompt: string, screen: string) => `/admin/branding/rendering/${encodeURIComponent(prompt)}/${encodeURIComponent(screen)}`;

function filtersSummary(filters: RenderingFilters | null | undefined): string {
  const count = (filters?.clients?.length ?? 0) + (filters?.organizations?.length ?? 0) + (filters?.domains?.length ?? 0);
  if (!filters || count === 0) return 'Every request';
  return `${filters.match_type === 'excludes_any' ? 'All but' : 'Only'} ${count} listed`;
}

/** A prompt and one of its screens, as two linked selects; `any` adds an "Any" choice for filtering. */
function PromptScreen(props: { idPrefix: string; any?: boolean; prompt: string; screen: string; onChange: (prompt: string, screen: string) => void }) {
  const screens = PROMPT_SCREENS[props.prompt] ?? [];
  return (
    <div class="field-row">
      <div>
        <label for={`${props.idPrefix}-prompt`}>Prompt</label>
        <select id={`${props.idPrefix}-prompt`} value={props.prompt} onChange={(event) => props.onChange(event.currentTarget.value, props.any ? '' : (PROMPT_SCREENS[event.currentTarget.value]?.[0] ?? ''))}>
          {props.any ? <option value="">Any prompt</option> : null}
          {PROMPTS.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </div>
      <div>
        <label for={`${props.idPrefix}-screen`}>Screen</label>
        <select id={`${props.idPrefix}-screen`} value={props.screen} disabled={props.any && !props.prompt} onChange={(event) => props.onChange(props.prompt, event.currentTarget.value)}>
          {props.any ? <option value="">Any screen</option> : null}
          {screens.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </div>
    </div>
  );
}

/** `GET /api/v2/prompts/rendering`: the configured screens, paged by the server, with its filters. */
export function RenderingList({ api }: PageProps) {
  const [page, setPage] = useState(0);
  const [filter, setFilter] = useState({ prompt: '', screen: '', mode: '' });
  const [list, setList] = useState<ListPage<'configs', RenderingConfig> | undefined>();
  const [error, setError] = useState<unknown>();
  const [target, setTarget] = useState({ prompt: 'login', screen: 'login' });

  useEffect(() => {
    setError(undefined);
    const query = new URLSearchParams({ include_totals: 'true', page: String(page), per_page: String(PER_PAGE) });
    if (filter.prompt) query.set('prompt', filter.prompt);
    if (filter.screen) query.set('screen', filter.screen);
    if (filter.mode) query.set('rendering_mode', filter.mode);
    api<ListPage<'configs', RenderingConfig>>('GET', `/prompts/rendering?${query.toString()}`).then(setList, setError);
  }, [api, page, filter]);

  return (
    <>
      <h1 tabIndex={-1}>Rendering</h1>
      <p>How each screen is rendered: Latchkey's standard page, or your own bundle (advanced mode) loaded by head tags, with the context data it may read.</p>
      <form
        class="card"
        aria-labelledby="configure-title"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(renderingPath(target.prompt, target.screen));
        }}
      >
        <h2 id="configure-title">Configure a screen</h2>
        <PromptScreen idPrefix="configure" prompt={target.prompt} screen={target.screen} onChange={(prompt, screen) => setTarget({ prompt, screen })} />
        <div class="actions">
          <button type="submit" class="primary">
            Configure
          </button>
        </div>
      </form>
      <section class="card" aria-labelledby="configured-title">
        <h2 id="configured-title">Configured screens</h2>
        <div class="field-row">
          <PromptScreen
            idPrefix="filter"
            any
            prompt={filter.prompt}
            screen={filter.screen}
            onChange={(prompt, screen) => {
              setPage(0);
              setFilter({ ...filter, prompt, screen });
            }}
          />
          <div>
            <label for="filter-mode">Rendering mode</label>
            <select
              id="filter-mode"
              value={filter.mode}
              onChange={(event) => {
                setPage(0);
                setFilter({ ...filter, mode: event.currentTarget.value });
              }}
            >
              <option value="">Any mode</option>
              <option value="standard">Standard</option>
              <option value="advanced">Advanced</option>
            </select>
          </div>
        </div>
        <small>As the API pages them: each page of configurations is filtered on its own, so a filtered page may be short while later pages match.</small>
        <ErrorNote error={error} />
        {list ? (
          <>
            {list.configs.length > 0 ? (
              <table>
                <caption class="visually-hidden">Configured screens</caption>
                <thead>
                  <tr>
                    <th scope="col">Screen</th>
                    <th scope="col">Mode</th>
                    <th scope="col">Head tags</th>
                    <th scope="col">Applies to</th>
                  </tr>
                </thead>
                <tbody>
                  {list.configs.map((config) => (
                    <tr key={`${config.prompt}/${config.screen}`}>
                      <td>
                        <a href={renderingPath(config.prompt, config.screen)}>
                          {config.prompt} / {config.screen}
                        </a>
                      </td>
                      <td>{config.rendering_mode === 'advanced' ? 'Advanced' : 'Standard'}</td>
                      <td>{config.head_tags?.length ?? 0}</td>
                      <td>{filtersSummary(config.filters)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p>No configured screen on this page.</p>
            )}
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Configurations" onPage={setPage} />
          </>
        ) : !error ? (
          <p aria-busy="true">Loading…</p>
        ) : null}
      </section>
    </>
  );
}

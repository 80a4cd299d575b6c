import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote, Pager } from '../components.js';
import { openPreview, refreshPreview } from '../preview.js';
import type { Client, ListPage } from '../types.js';

const PER_PAGE = 20;

/** The application picked for the preview, kept while the administrator moves between the branding pages. */
let picked: string | undefined;
let pickedScreen: 'login' | 'signup' = 'login';

/** What a page says once its change is saved: the open preview window reloads with it. */
export function savedMessage(): string {
  return refreshPreview() ? 'Saved. The preview window reloaded with it.' : 'Saved.';
}

/**
 * The hosted page of an application the administrator picks, in a window of its own (the hosted pages refuse to be
 * framed, and keep refusing). Only applications users sign in to are listed, a page at a time.
 */
export function PreviewCard({ api, settings, language }: PageProps & { language?: string }) {
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ListPage<'clients', Client> | undefined>();
  const [clientId, setClientId] = useState(picked ?? '');
  const [screen, setScreen] = useState(pickedScreen);
  const [error, setError] = useState<unknown>();
  const [blocked, setBlocked] = useState(false);

  useEffect(() => {
    api<ListPage<'clients', Client>>('GET', `/clients?include_totals=true&page=${page}&per_page=${PER_PAGE}&app_type=spa,regular_web,native&fields=client_id,name,callbacks`).then(
      (loaded) => {
        setList(loaded);
        if (!loaded.clients.some((client) => client.client_id === picked)) setClientId((picked = loaded.clients[0]?.client_id ?? ''));
      },
      setError,
    );
  }, [api, page]);

  const client = list?.clients.find((candidate) => candidate.client_id === clientId);
  const redirectUri = client?.callbacks?.[0];

  function open() {
    if (!client || !redirectUri) return;
    setBlocked(!openPreview(settings, { clientId: client.client_id, redirectUri, screenHint: screen, language }));
  }

  return (
    <section class="card" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p>
        The hosted page of an application, as its users see it with the saved settings. It opens in a window of its own, which reloads after each save
        here.
      </p>
      <ErrorNote error={error} />
      {list && list.total === 0 ? (
        <p>
          No application users sign in to yet: <a href="/admin/applications">create one</a> to preview its pages.
        </p>
      ) : list ? (
        <>
          <label for="preview-application">Application</label>
          <select id="preview-application" value={clientId} onChange={(event) => setClientId((picked = event.currentTarget.value))}>
            {list.clients.map((entry) => (
              <option key={entry.client_id} value={entry.client_id}>
                {entry.name}
              </option>
            ))}
          </select>
          {list.total > PER_PAGE ? <Pager page={page} perPage={PER_PAGE} total={list.total} label="Applications" onPage={setPage} /> : null}
          <fieldset>
            <legend>Page</legend>
            <div class="segmented">
              {(['login', 'signup'] as const).map((value) => (
                <label key={value}>
                  <input type="radio" name="preview-screen" checked={screen === value} onChange={() => setScreen((pickedScreen = value))} />
                  {value === 'login' ? 'Log in' : 'Sign up'}
                </label>
              ))}
            </div>
          </fieldset>
          {client && !redirectUri ? (
            <p class="muted">
              {client.name} has no callback URL, so no page can be requested for it: <a href={`/admin/applications/${encodeURIComponent(client.client_id)}`}>add one</a>.
            </p>
          ) : null}
          <div class="actions">
            <button type="button" onClick={open} disabled={!redirectUri}>
              Open preview
            </button>
            {language ? <span class="muted">In the language {language}.</span> : null}
          </div>
          {blocked ? (
            <p class="error" role="alert">
              The browser blocked the preview window: allow pop-ups for this page, then try again.
            </p>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading applications…</p>
      ) : null}
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { COMMON_TEXT_KEYS, HOSTED_LOCALES, PROMPT_LANGUAGES, PROMPT_SCREENS } from '../catalogue.js';
import { ConfirmDialog, ErrorNote } from '../components.js';
import type { TenantSettings } from '../types.js';
import { PreviewCard, savedMessage } from './preview-card.js';

type Texts = Record<string, Record<string, string>>;
/** One screen's overrides as rows, in the order the administrator wrote them (a key may be half-typed). */
type Rows = Record<string, { key: string; text: string }[]>;

const rowsOf = (texts: Texts): Rows => Object.fromEntries(Object.entries(texts).map(([screen, entries]) => [screen, Object.entries(entries).map(([key, text]) => ({ key, text }))]));

/** Screens left without a text are left out; rows without a key are dropped (nothing to override). */
function textsOf(rows: Rows): Texts {
  const texts: Texts = {};
  for (const [screen, entries] of Object.entries(rows)) {
    const kept = entries.filter((entry) => entry.key.trim());
    if (kept.length > 0) texts[screen] = Object.fromEntries(kept.map((entry) => [entry.key.trim(), entry.text]));
  }
  return texts;
}

function ScreenTexts(props: { screen: string; rows: { key: string; text: string }[]; onChange: (rows: { key: string; text: string }[]) => void }) {
  const { screen, rows } = props;
  const update = (index: number, patch: Partial<{ key: string; text: string }>) => props.onChange(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <fieldset>
      <legend>Screen {screen}</legend>
      {rows.length === 0 ? <p class="muted">No custom text: the screen shows Latchkey's own.</p> : null}
      {rows.map((row, index) => (
        <div key={index} class="text-row">
          <label for={`${screen}-key-${index}`}>Text key</label>
          <input id={`${screen}-key-${index}`} list="text-keys" value={row.key} maxLength={100} onInput={(event) => update(index, { key: event.currentTarget.value })} />
          <label for={`${screen}-text-${index}`}>Text</label>
          <textarea id={`${screen}-text-${index}`} rows={2} maxLength={2000} value={row.text} onInput={(event) => update(index, { text: event.currentTarget.value })} />
          <button type="button" onClick={() => props.onChange(rows.filter((_, at) => at !== index))}>
            Remove text {row.key || index + 1}
          </button>
        </div>
      ))}
      <div class="actions">
        <button type="button" onClick={() => props.onChange([...rows, { key: '', text: '' }])}>
          Add a text to {screen}
        </button>
      </div>
    </fieldset>
  );
}

/** `GET/PUT /api/v2/prompts/{prompt}/custom-text/{language}`: the texts of a prompt's screens, replaced as a whole. */
export function CustomTextsPage(props: PageProps) {
  const { api } = props;
  const [prompt, setPrompt] = useState('login');
  const [language, setLanguage] = useState('en');
  const [rows, setRows] = useState<Rows | undefined>();
  const [enabledLocales, setEnabledLocales] = useState<string[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const path = `/prompts/${encodeURIComponent(prompt)}/custom-text/${encodeURIComponent(language)}`;

  useEffect(() => {
    setRows(undefined);
    setError(undefined);
    setSaved(undefined);
    api<Texts>('GET', path).then((texts) => setRows(rowsOf(texts)), setError);
  }, [api, path]);
  useEffect(() => {
    api<TenantSettings>('GET', '/tenants/settings?fields=enabled_locales').then((settings) => setEnabledLocales(settings.enabled_locales ?? []), setError);
  }, [api]);

  async function put(texts: Texts) {
    setError(undefined);
    setSaved(undefined);
    try {
      setRows(rowsOf(await api<Texts>('PUT', path, texts)));
      setSaved(savedMessage());
    } catch (caught) {
      setError(caught);
    }
  }

  const screens = PROMPT_SCREENS[prompt] ?? [];
  const hosted = HOSTED_LOCALES.some((locale) => locale.tag === language);
  return (
    <>
      <h1 tabIndex={-1}>Custom texts</h1>
      <p>Your own words on the hosted pages, per prompt and language. A text replaces Latchkey's under the same key; the others stay.</p>
      <div class="card">
        <div class="field-row">
          <div>
            <label for="text-prompt">Prompt</label>
            <select id="text-prompt" value={prompt} onChange={(event) => setPrompt(event.currentTarget.value)}>
              {Object.keys(PROMPT_SCREENS).map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </div>
          <div>
            <label for="text-language">Language</label>
            <select id="text-language" value={language} onChange={(event) => setLanguage(event.currentTarget.value)}>
              {PROMPT_LANGUAGES.map((tag) => (
                <option key={tag}>{tag}</option>
              ))}
            </select>
          </div>
        </div>
        {!hosted ? <p class="muted">The standard pages are shown in {HOSTED_LOCALES.map((locale) => locale.tag).join(', ')}; texts in {language} reach advanced screens only.</p> : null}
        {hosted && enabledLocales && !enabledLocales.includes(language) ? (
          <p class="muted">
            {language} is not among the tenant's languages, so no page is shown in it yet: enable it in <a href="/admin/settings">Settings</a>.
          </p>
        ) : null}
      </div>
      <datalist id="text-keys">
        {COMMON_TEXT_KEYS.map((key) => (
          <option key={key} value={key} />
        ))}
      </datalist>
      {rows ? (
        <form
          class="card"
          aria-labelledby="texts-title"
          onSubmit={(event) => {
            event.preventDefault();
            void put(textsOf(rows));
          }}
        >
          <h2 id="texts-title">
            Texts of {prompt} in {language}
          </h2>
          {screens.map((screen) => (
            <ScreenTexts key={screen} screen={screen} rows={rows[screen] ?? []} onChange={(changed) => setRows({ ...rows, [screen]: changed })} />
          ))}
          <ErrorNote error={error} />
          <div class="actions">
            <button type="submit" class="primary">
              Save texts
            </button>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Remove all texts
            </button>
            {saved ? <span role="status">{saved}</span> : null}
          </div>
        </form>
      ) : error ? (
        <ErrorNote error={error} />
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
      {confirming ? (
        <ConfirmDialog
          title={`Remove every text of ${prompt} in ${language}?`}
          confirmLabel="Remove all"
          onConfirm={() => {
            setConfirming(false);
            void put({});
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>Its screens show Latchkey's own words again in {language}. The texts are not kept anywhere else.</p>
        </ConfirmDialog>
      ) : null}
      <PreviewCard {...props} language={language} />
    </>
  );
}

import { useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote, Pager } from '../../components.js';
import { PER_PAGE, usePaged } from '../../paged.js';
import { navigate } from '../../router.js';
import type { Connection, Strategy } from '../../types.js';
import { ConnectionDetail } from './connection-detail.js';
import type { Options } from './fields.js';
import { GeneralFields, generalToSave, type General } from './general-fields.js';
import { KINDS, STRATEGY_LABELS, connectionPath, type Kind } from './kinds.js';
import { StrategyFields, optionsToSave } from './strategy-fields.js';


/** Database, passwordless and federated connections, one list each, and a connection's own page. */
export function Authentication(props: PageProps & { path: string }) {
  const detail = /^\/admin\/authentication\/connections\/([^/]+)/.exec(props.path)?.[1];
  if (detail) return <ConnectionDetail {...props} id={decodeURIComponent(detail)} />;
  const kind = KINDS.find((entry) => entry.path === props.path.replace(/\/+$/, '')) ?? (KINDS[0] as Kind);
  return <ConnectionList key={kind.id} {...props} kind={kind} />;
}

export function KindTabs({ current }: { current: Kind['id'] }) {
  return (
    <nav aria-label="Connection kinds">
      <ul class="tabs">
        {KINDS.map((kind) => (
          <li key={kind.id}>
            <a href={kind.path} aria-current={kind.id === current ? 'page' : undefined}>
              {kind.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function CreateConnection({ api, kind, onCancel }: PageProps & { kind: Kind; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [strategy, setStrategy] = useState<Strategy>(kind.strategies[0] ?? 'auth0');
  const [options, setOptions] = useState<Options>({});
  const [general, setGeneral] = useState<General>({ displayName: '', showAsButton: true });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<Connection>('POST', '/connections', { name: name.trim(), strategy, options: optionsToSave(strategy, options), ...generalToSave(strategy, general) });
      navigate(connectionPath(created.id));
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">Create {kind.label.toLowerCase()} connection</h2>
      <label for="connection-name">Name</label>
      <input
        id="connection-name"
        required
        maxLength={128}
        autoComplete="off"
        aria-describedby="connection-name-hint"
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <small id="connection-name-hint">Letters, digits and dashes inside; applications name the connection by it. It cannot be changed later.</small>
      {kind.strategies.length > 1 ? (
        <fieldset>
          <legend>Strategy</legend>
          <div class="segmented">
            {kind.strategies.map((entry) => (
              <label key={entry}>
                <input
                  type="radio"
                  name="strategy"
                  value={entry}
                  checked={strategy === entry}
                  onChange={() => {
                    setStrategy(entry);
                    setOptions({});
                  }}
                />
                {STRATEGY_LABELS[entry]}
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      <GeneralFields strategy={strategy} general={general} onChange={setGeneral} />
      <StrategyFields strategy={strategy} options={options} initial={{}} onChange={setOptions} />
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Create
        </button>
      </div>
    </form>
  );
}

function ConnectionList(props: PageProps & { kind: Kind }) {
  const { api, kind } = props;
  const query = new URLSearchParams({ fields: 'id,name,strategy,display_name,enabled_clients' });
  for (const strategy of kind.strategies) query.append('strategy', strategy);
  const { list, error, page, setPage } = usePaged<'connections', Connection>(api, `/connections?${query.toString()}`, 'connections');
  const [creating, setCreating] = useState(false);

  return (
    <section>
      <h1 tabIndex={-1}>Authentication</h1>
      <KindTabs current={kind.id} />
      <div class="title-row">
        <h2>{kind.label} connections</h2>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create connection
          </button>
        ) : null}
      </div>
      <p class="muted">{kind.intro}</p>
      {creating ? <CreateConnection {...props} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">{kind.label} connections</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Strategy</th>
                <th scope="col">Applications</th>
              </tr>
            </thead>
            <tbody>
              {list.connections.map((connection) => (
                <tr key={connection.id}>
                  <td>
                    <a href={connectionPath(connection.id)}>{connection.name}</a>
                    {connection.display_name && connection.display_name !== connection.name ? <small>{connection.display_name}</small> : null}
                  </td>
                  <td>{STRATEGY_LABELS[connection.strategy]}</td>
                  <td>{connection.enabled_clients.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.connections.length === 0 ? <p>No {kind.label.toLowerCase()} connection yet.</p> : null}
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="Connections" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}

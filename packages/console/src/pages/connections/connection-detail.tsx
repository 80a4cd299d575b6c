import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { navigate } from '../../router.js';
import type { Connection } from '../../types.js';
import { EnabledApplications } from './enabled-applications.js';
import type { Options } from './fields.js';
import { GeneralFields, generalToSave, type General } from './general-fields.js';
import { STRATEGY_LABELS, kindOf } from './kinds.js';
import { StrategyFields, optionsToSave } from './strategy-fields.js';

const generalOf = (connection: Connection): General => ({ displayName: connection.display_name ?? '', showAsButton: connection.show_as_button });

export function ConnectionDetail(props: PageProps & { id: string }) {
  const { api, id, settings } = props;
  const [connection, setConnection] = useState<Connection | undefined>();
  const [options, setOptions] = useState<Options>({});
  const [general, setGeneral] = useState<General>({ displayName: '', showAsButton: false });
  const [error, setError] = useState<unknown>();
  const [saveError, setSaveError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const path = `/connections/${encodeURIComponent(id)}`;

  const show = (loaded: Connection) => {
    setConnection(loaded);
    setOptions(loaded.options);
    setGeneral(generalOf(loaded));
  };

  useEffect(() => {
    api<Connection>('GET', path).then(show, setError);
  }, [api, path]);

  async function save(event: Event) {
    event.preventDefault();
    if (!connection) return;
    setSaveError(undefined);
    setSaved(false);
    try {
      show(await api<Connection>('PATCH', path, { options: optionsToSave(connection.strategy, options), ...generalToSave(connection.strategy, general) }));
      setSaved(true);
    } catch (caught) {
      setSaveError(caught);
    }
  }

  async function remove() {
    setConfirming(false);
    try {
      await api('DELETE', path);
      navigate(connection ? kindOf(connection.strategy).path : '/admin/authentication');
    } catch (caught) {
      setError(caught);
    }
  }

  const kind = connection ? kindOf(connection.strategy) : undefined;
  return (
    <section>
      <p>
        <a href={kind?.path ?? '/admin/authentication'}>← {kind ? `${kind.label} connections` : 'Authentication'}</a>
      </p>
      <h1 tabIndex={-1}>{connection?.name ?? 'Connection'}</h1>
      {connection ? (
        <p class="muted">
          {STRATEGY_LABELS[connection.strategy]} connection <code>{connection.id}</code>
        </p>
      ) : null}
      <ErrorNote error={error} />
      {connection ? (
        <>
          <form class="card" onSubmit={save} aria-labelledby="settings-title">
            <h2 id="settings-title">Settings</h2>
            <GeneralFields strategy={connection.strategy} general={general} onChange={setGeneral} />
            <StrategyFields strategy={connection.strategy} options={options} initial={connection.options} onChange={setOptions} />
            <ErrorNote error={saveError} />
            <div class="actions">
              <button type="submit" class="primary">
                Save changes
              </button>
              {saved ? <span role="status">Saved.</span> : null}
            </div>
          </form>
          <EnabledApplications {...props} connection={connection} onChange={(enabledClients) => setConnection({ ...connection, enabled_clients: enabledClients })} />
          <div class="card danger-zone">
            <h2>Delete this connection</h2>
            <p>Its users are deleted with it, and no application can log in through it any more.</p>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete connection
            </button>
          </div>
          {confirming ? (
            <ConfirmDialog title={`Delete ${connection.name}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
              <p>This cannot be undone: the connection and all of its users are removed.</p>
              {connection.enabled_clients.includes(settings.clientId) ? <p>Administrators who log in to this console through it will no longer be able to.</p> : null}
            </ConfirmDialog>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote, Pager } from '../../components.js';
import { navigate } from '../../router.js';
import { DeleteAction } from './delete-action.js';
import type { Action, ActionsPage, Trigger } from './model.js';
import { starterCode, triggerLabel } from './triggers.js';

const PER_PAGE = 25;

/** Where an action stands, in words: never deployed, deployed as is, changed since, or a draft that does not build. */
export function actionState(action: Pick<Action, 'status' | 'all_changes_deployed' | 'deployed_version'>): string {
  if (action.status === 'failed') return 'Draft does not build';
  if (!action.deployed_version) return 'Not deployed';
  return action.all_changes_deployed ? `Deployed (version ${action.deployed_version.number})` : `Deployed (version ${action.deployed_version.number}), draft changed`;
}

function CreateAction({ api, onCancel }: PageProps & { onCancel: () => void }) {
  const [name, setName] = useState('');
  const [trigger, setTrigger] = useState('post-login');
  const [triggers, setTriggers] = useState<Trigger[]>([]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<{ triggers: Trigger[] }>('GET', '/actions/triggers').then((answer) => setTriggers(answer.triggers), setError);
  }, [api]);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const version = triggers.find((entry) => entry.id === trigger)?.version;
    try {
      const created = await api<Action>('POST', '/actions/actions', {
        name: name.trim(),
        supported_triggers: [{ id: trigger, ...(version ? { version } : {}) }],
        code: starterCode(trigger),
      });
      navigate(`/admin/actions/${encodeURIComponent(created.id)}`);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">Create action</h2>
      <label for="action-name">Name</label>
      <input id="action-name" required maxLength={255} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <label for="action-trigger">Trigger</label>
      <select id="action-trigger" value={trigger} aria-describedby="action-trigger-hint" onChange={(event) => setTrigger(event.currentTarget.value)}>
        {(triggers.length ? triggers : [{ id: 'post-login', version: 'v3' }]).map((entry) => (
          <option key={entry.id} value={entry.id}>
            {triggerLabel(entry.id)} ({entry.id}, {entry.version})
          </option>
        ))}
      </select>
      <small id="action-trigger-hint">When the action runs. It cannot move to another trigger while a flow runs it.</small>
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

/** The Actions library: every custom action, a page at a time, with its trigger and whether it is deployed. */
export function ActionLibrary(props: PageProps) {
  const { api } = props;
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ActionsPage<'actions', Action> | undefined>();
  const [error, setError] = useState<unknown>();
  const [creating, setCreating] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    setError(undefined);
    api<ActionsPage<'actions', Action>>('GET', `/actions/actions?page=${page}&per_page=${PER_PAGE}`).then((loaded) => {
      // The last action of the last page was deleted: show the page before it.
      if (loaded.actions.length === 0 && page > 0) setPage(page - 1);
      else setList(loaded);
    }, setError);
  }, [api, page, reload]);

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>Actions</h1>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create action
          </button>
        ) : null}
      </div>
      <p class="muted">Code that runs at a trigger, such as each login. Deploy an action, then add it to the trigger’s flow.</p>
      {creating ? <CreateAction {...props} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {list ? (
        list.total === 0 ? (
          <p>No actions yet.</p>
        ) : (
          <>
            <table class="keep-last">
              <caption class="visually-hidden">Actions</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="visually-hidden">Delete</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.actions.map((action) => (
                  <tr key={action.id}>
                    <td>
                      <a href={`/admin/actions/${encodeURIComponent(action.id)}`}>{action.name}</a>
                    </td>
                    <td>{triggerLabel(action.supported_triggers[0]?.id ?? '')}</td>
                    <td>{actionState(action)}</td>
                    <td>
                      <DeleteAction api={api} action={action} onDeleted={() => setReload((count) => count + 1)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Actions" onPage={setPage} />
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}

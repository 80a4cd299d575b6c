import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ConfirmDialog, ErrorNote, Pager } from '../../components.js';
import { actionPath, type ActionsPage, type ActionVersion } from './model.js';

const PER_PAGE = 10;

/**
 * The action's versions, newest first: view one's code, or deploy an older one again (a rollback, which makes a new
 * version like it). `refresh` changes when a deploy elsewhere on the page made a version; `onDeployed` tells the page.
 */
export function Versions(props: { api: Api; actionId: string; refresh: number; onDeployed: (version: ActionVersion, draftReplaced: boolean) => void }) {
  const { api, actionId } = props;
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ActionsPage<'versions', ActionVersion> | undefined>();
  const [viewing, setViewing] = useState<string | undefined>();
  const [rollingBack, setRollingBack] = useState<ActionVersion | undefined>();
  const [updateDraft, setUpdateDraft] = useState(false);
  const [error, setError] = useState<unknown>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api<ActionsPage<'versions', ActionVersion>>('GET', `${actionPath(actionId)}/versions?page=${page}&per_page=${PER_PAGE}`).then(setList, setError);
  }, [api, actionId, page, props.refresh, reload]);

  async function rollBack() {
    const target = rollingBack;
    setRollingBack(undefined);
    if (!target) return;
    setError(undefined);
    try {
      const deployed = await api<ActionVersion>('POST', `${actionPath(actionId)}/versions/${encodeURIComponent(target.id)}/deploy`, { update_draft: updateDraft });
      props.onDeployed(deployed, updateDraft);
      setPage(0);
      setReload((count) => count + 1);
    } catch (caught) {
      setError(caught);
    }
  }

  const shown = list?.versions.find((version) => version.id === viewing);
  return (
    <div class="card">
      <h2>Versions</h2>
      <ErrorNote error={error} />
      {list ? (
        list.total === 0 ? (
          <p>Not deployed yet: each deploy makes a version.</p>
        ) : (
          <>
            <table class="keep-last">
              <caption class="visually-hidden">Versions</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.versions.map((version) => (
                  <tr key={version.id}>
                    <td>
                      Version {version.number}
                      {version.deployed ? <span class="badge badge-ok">Deployed</span> : null}
                    </td>
                    <td>{new Date(version.created_at).toLocaleString()}</td>
                    <td>
                      <div class="row-actions">
                        <button type="button" aria-pressed={viewing === version.id} aria-label={`View code of version ${version.number}`} onClick={() => setViewing(viewing === version.id ? undefined : version.id)}>
                          View code
                        </button>
                        {!version.deployed ? (
                          <button type="button" aria-label={`Roll back to version ${version.number}`} onClick={() => setRollingBack(version)}>
                            Roll back
                          </button>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Versions" onPage={setPage} />
            {shown ? (
              <>
                <h3>Code of version {shown.number}</h3>
                <pre tabIndex={0} aria-label={`Code of version ${shown.number}`}>
                  {shown.code}
                </pre>
              </>
            ) : null}
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {rollingBack ? (
        <ConfirmDialog title={`Roll back to version ${rollingBack.number}?`} confirmLabel="Deploy it" onConfirm={() => void rollBack()} onCancel={() => setRollingBack(undefined)}>
          <p>Its code, dependencies and secrets become a new version that every flow running this action uses at once.</p>
          <label class="check">
            <input type="checkbox" checked={updateDraft} onChange={(event) => setUpdateDraft(event.currentTarget.checked)} />
            Also replace the draft with it
          </label>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { CodeEditor } from '../../code-editor.js';
import { ErrorNote } from '../../components.js';
import { navigate } from '../../router.js';
import { DeleteAction } from './delete-action.js';
import { Dependencies } from './dependencies.js';
import { actionState } from './library.js';
import { actionPath, triggerOf, type Action, type ActionVersion } from './model.js';
import { Secrets } from './secrets.js';
import { TestRunner } from './test-runner.js';
import { triggerLabel } from './triggers.js';
import { Versions } from './versions.js';

/** A draft whose build failed, in the build's own words (a syntax error, a dependency that is not installed). */
function BuildErrors({ action }: { action: Action }) {
  if (action.status !== 'failed') return null;
  return (
    <div class="error" role="alert">
      <p>The draft does not build, so it cannot be tested or deployed:</p>
      <ul>
        {(action.errors ?? []).map((error, index) => (
          <li key={index}>{error.msg}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * One action: its code in the editor (saved as the draft), secrets and dependencies, a test run of the draft,
 * deploying it, and its versions (view, roll back).
 */
export function ActionEditor({ api, id }: PageProps & { id: string }) {
  const [action, setAction] = useState<Action | undefined>();
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const [versionsRefresh, setVersionsRefresh] = useState(0);
  const path = actionPath(id);

  useEffect(() => {
    api<Action>('GET', path).then((loaded) => {
      setAction(loaded);
      setCode(loaded.code);
    }, setError);
  }, [api, path]);

  const dirty = action !== undefined && code !== action.code;

  /** Saves the editor's code as the draft when it changed; false when it cannot be used (refused, or does not build). */
  async function saveDraft(): Promise<boolean> {
    if (!action) return false;
    if (!dirty) return action.status === 'built';
    setError(undefined);
    const saved = await api<Action>('PATCH', path, { code });
    setAction(saved);
    return saved.status === 'built';
  }

  async function perform(work: () => Promise<string | undefined>) {
    setBusy(true);
    setError(undefined);
    setStatus('');
    try {
      const done = await work();
      if (done) setStatus(done);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  const save = (event: Event) => {
    event.preventDefault();
    void perform(async () => ((await saveDraft()) ? 'Draft saved.' : undefined));
  };

  const deploy = () =>
    perform(async () => {
      if (!(await saveDraft())) return undefined;
      const version = await api<ActionVersion>('POST', `${path}/deploy`);
      setAction(await api<Action>('GET', path));
      setVersionsRefresh((count) => count + 1);
      return `Version ${version.number} deployed.`;
    });

  async function deployedVersion(version: ActionVersion, draftReplaced: boolean) {
    const reloaded = await api<Action>('GET', path);
    setAction(reloaded);
    if (draftReplaced) setCode(reloaded.code);
    setStatus(`Rolled back: version ${version.number} is deployed.`);
  }

  const trigger = action ? triggerOf(action) : undefined;
  return (
    <section>
      <p>
        <a href="/admin/actions">← Actions</a>
      </p>
      <h1 tabIndex={-1}>{action?.name ?? 'Action'}</h1>
      {action && trigger ? (
        <p class="muted">
          {triggerLabel(trigger)} ({trigger}, {action.supported_triggers[0]?.version}) · {actionState(action)}
        </p>
      ) : null}
      {action ? (
        <>
          <form class="card" onSubmit={save} aria-labelledby="code-title">
            <h2 id="code-title">Draft</h2>
            <CodeEditor id="action-code" label="Code" value={code} onChange={setCode} />
            <BuildErrors action={action} />
            <div class="actions">
              <button type="submit" disabled={busy}>
                Save draft
              </button>
              <button type="button" class="primary" disabled={busy} onClick={() => void deploy()}>
                Deploy
              </button>
              {dirty ? <span class="muted">Unsaved changes (saved when you test or deploy).</span> : null}
              {status ? <span role="status">{status}</span> : null}
            </div>
            <ErrorNote error={error} />
          </form>
          {trigger ? <TestRunner api={api} actionId={action.id} trigger={trigger} beforeRun={saveDraft} /> : null}
          <Secrets api={api} action={action} onSaved={setAction} />
          <Dependencies api={api} action={action} onSaved={setAction} />
          <Versions api={api} actionId={action.id} refresh={versionsRefresh} onDeployed={(version, replaced) => void deployedVersion(version, replaced)} />
          <div class="card danger-zone">
            <h2>Delete this action</h2>
            <p>Flows stop running it. The API refuses while a flow runs it, unless you ask for it to be removed from its flows too.</p>
            <DeleteAction api={api} action={action} label="Delete action" onDeleted={() => navigate('/admin/actions')} />
          </div>
        </>
      ) : error ? (
        <ErrorNote error={error} />
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
    </section>
  );
}

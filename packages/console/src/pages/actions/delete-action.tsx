import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { actionPath, type Action } from './model.js';

/**
 * Delete with a confirmation. The API refuses to delete an action a flow runs (it answers why, in words); the
 * administrator may then ask for it to be removed from its flows too (`force=true`).
 */
export function DeleteAction(props: { api: Api; action: Pick<Action, 'id' | 'name'>; label?: string; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [force, setForce] = useState(false);
  const [error, setError] = useState<unknown>();

  async function remove() {
    setConfirming(false);
    setError(undefined);
    try {
      await props.api('DELETE', `${actionPath(props.action.id)}${force ? '?force=true' : ''}`);
      props.onDeleted();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <>
      <button type="button" class="danger" onClick={() => setConfirming(true)} aria-label={props.label ? undefined : `Delete ${props.action.name}`}>
        {props.label ?? 'Delete'}
      </button>
      <ErrorNote error={error} />
      {confirming ? (
        <ConfirmDialog title={`Delete ${props.action.name}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
          <p>The action and all its versions are removed for good.</p>
          <label class="check">
            <input type="checkbox" checked={force} onChange={(event) => setForce(event.currentTarget.checked)} />
            Also remove it from the flows that run it
          </label>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

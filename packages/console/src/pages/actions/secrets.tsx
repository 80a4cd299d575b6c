import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { actionPath, type Action } from './model.js';

/**
 * The action's secrets (`event.secrets`). Values are write-only: the API lists names and update times, and a
 * secret sent back without a value keeps the value it has, so every change sends the whole list that way.
 */
export function Secrets({ api, action, onSaved }: { api: Api; action: Action; onSaved: (action: Action) => void }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [editing, setEditing] = useState<string | undefined>();
  const [newValue, setNewValue] = useState('');
  const [removing, setRemoving] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');

  async function save(secrets: { name: string; value?: string }[], done: string) {
    setError(undefined);
    setStatus('');
    try {
      onSaved(await api<Action>('PATCH', actionPath(action.id), { secrets }));
      setStatus(done);
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    }
  }

  const kept = (except?: string) => action.secrets.filter((secret) => secret.name !== except).map((secret) => ({ name: secret.name }));

  async function add(event: Event) {
    event.preventDefault();
    const trimmed = name.trim();
    const exists = action.secrets.some((secret) => secret.name === trimmed);
    const secrets = exists ? action.secrets.map((secret) => (secret.name === trimmed ? { name: trimmed, value } : { name: secret.name })) : [...kept(), { name: trimmed, value }];
    if (await save(secrets, `Secret ${trimmed} ${exists ? 'updated' : 'added'}.`)) {
      setName('');
      setValue('');
    }
  }

  async function update(event: Event) {
    event.preventDefault();
    if (!editing) return;
    const secrets = action.secrets.map((secret) => (secret.name === editing ? { name: secret.name, value: newValue } : { name: secret.name }));
    if (await save(secrets, `Secret ${editing} updated.`)) {
      setEditing(undefined);
      setNewValue('');
    }
  }

  async function remove() {
    const target = removing;
    setRemoving(undefined);
    if (target) await save(kept(target), `Secret ${target} removed.`);
  }

  return (
    <div class="card">
      <h2 id="secrets-title">Secrets</h2>
      <p class="muted">
        Given to the code as <code>event.secrets</code>. Values are never shown again once saved; a change takes effect at the next deploy.
      </p>
      {action.secrets.length ? (
        <table class="keep-last">
          <caption class="visually-hidden">Secrets</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="visually-hidden">Change</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {action.secrets.map((secret) => (
              <tr key={secret.name}>
                <td>
                  <code>{secret.name}</code>
                </td>
                <td>{new Date(secret.updated_at).toLocaleString()}</td>
                <td>
                  {editing === secret.name ? (
                    <form class="inline-form" onSubmit={update}>
                      <label for="secret-new-value">New value of {secret.name}</label>
                      <input id="secret-new-value" type="password" autocomplete="new-password" required value={newValue} onInput={(event) => setNewValue(event.currentTarget.value)} />
                      <button type="submit" class="primary">
                        Save value
                      </button>
                      <button type="button" onClick={() => setEditing(undefined)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    <div class="row-actions">
                      <button type="button" aria-label={`Update value of ${secret.name}`} onClick={() => setEditing(secret.name)}>
                        Update value
                      </button>
                      <button type="button" class="danger" aria-label={`Remove ${secret.name}`} onClick={() => setRemoving(secret.name)}>
                        Remove
                      </button>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No secrets.</p>
      )}
      <form onSubmit={add} aria-label="Add a secret">
        <div class="field-row">
          <div>
            <label for="secret-name">Secret name</label>
            <input id="secret-name" required maxLength={128} autocomplete="off" value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </div>
          <div>
            <label for="secret-value">Secret value</label>
            <input id="secret-value" type="password" autocomplete="new-password" required maxLength={4096} value={value} onInput={(event) => setValue(event.currentTarget.value)} />
          </div>
        </div>
        <div class="actions">
          <button type="submit">Add secret</button>
          {status ? <span role="status">{status}</span> : null}
        </div>
      </form>
      <ErrorNote error={error} />
      {removing ? (
        <ConfirmDialog title={`Remove the secret ${removing}?`} confirmLabel="Remove" onConfirm={() => void remove()} onCancel={() => setRemoving(undefined)}>
          <p>Its value is lost: code that reads it gets nothing once the action is deployed again.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ErrorNote } from '../../components.js';
import { actionPath, type Action, type ActionDependency } from './model.js';

/**
 * The npm packages the code may `require`. Latchkey installs none itself: each must be in the server's modules
 * directory at the version declared (or `latest`), and the draft's build says so in words when one is not.
 */
export function Dependencies({ api, action, onSaved }: { api: Api; action: Action; onSaved: (action: Action) => void }) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState('latest');
  const [error, setError] = useState<unknown>();

  async function save(dependencies: ActionDependency[]) {
    setError(undefined);
    try {
      onSaved(await api<Action>('PATCH', actionPath(action.id), { dependencies: dependencies.map(({ name, version }) => ({ name, version })) }));
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    }
  }

  async function add(event: Event) {
    event.preventDefault();
    const entry = { name: name.trim(), version: version.trim() };
    if (await save([...action.dependencies.filter((dependency) => dependency.name !== entry.name), entry])) {
      setName('');
      setVersion('latest');
    }
  }

  return (
    <div class="card">
      <h2>Dependencies</h2>
      <p class="muted">npm packages installed in the server’s modules directory (LATCHKEY_ACTIONS_MODULES_DIR), at the version given or the one installed (latest).</p>
      {action.dependencies.length ? (
        <ul class="plain-list">
          {action.dependencies.map((dependency) => (
            <li key={dependency.name}>
              <code>
                {dependency.name}@{dependency.version}
              </code>{' '}
              <button type="button" aria-label={`Remove the dependency ${dependency.name}`} onClick={() => void save(action.dependencies.filter((other) => other.name !== dependency.name))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p>No dependencies.</p>
      )}
      <form onSubmit={add} aria-label="Add a dependency">
        <div class="field-row">
          <div>
            <label for="dependency-name">Package name</label>
            <input id="dependency-name" required maxLength={214} autocomplete="off" value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </div>
          <div>
            <label for="dependency-version">Version</label>
            <input id="dependency-version" required maxLength={64} autocomplete="off" value={version} onInput={(event) => setVersion(event.currentTarget.value)} />
          </div>
        </div>
        <div class="actions">
          <button type="submit">Add dependency</button>
        </div>
      </form>
      <ErrorNote error={error} />
    </div>
  );
}

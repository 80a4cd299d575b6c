import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ErrorNote } from '../../components.js';
import { actionPath, type TestResult } from './model.js';
import { sampleEvent } from './triggers.js';

/** The event as typed: an object, or a message saying in words what is wrong with it. */
function parseEvent(text: string): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `The event is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : 'The event must be a JSON object.';
}

/**
 * Runs the saved draft once with an event the administrator edits (the trigger's sample to start with), and shows
 * what the code asked for (`api` calls), what it logged, and its error. `beforeRun` saves unsaved code first.
 */
export function TestRunner(props: { api: Api; actionId: string; trigger: string; beforeRun: () => Promise<boolean> }) {
  const [event, setEvent] = useState(() => sampleEvent(props.trigger));
  const [result, setResult] = useState<TestResult['payload'] | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function run(submit: Event) {
    submit.preventDefault();
    setError(undefined);
    setResult(undefined);
    const payload = parseEvent(event);
    if (typeof payload === 'string') return setError(new Error(payload));
    setBusy(true);
    try {
      if (!(await props.beforeRun())) throw new Error('The draft does not build: fix the errors shown under the code, then run the test again.');
      setResult((await props.api<TestResult>('POST', `${actionPath(props.actionId)}/test`, { payload })).payload);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={run} aria-labelledby="test-title">
      <h2 id="test-title">Test</h2>
      <label for="test-event">Event (JSON)</label>
      <textarea id="test-event" class="code" rows={12} spellcheck={false} aria-describedby="test-event-hint" value={event} onInput={(input) => setEvent(input.currentTarget.value)} />
      <small id="test-event-hint">
        A sample event of the trigger; change any field. Secrets come from the action unless the event has its own <code>secrets</code>.
      </small>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Run test
        </button>
        <button type="button" onClick={() => setEvent(sampleEvent(props.trigger))}>
          Reset to the sample
        </button>
      </div>
      <ErrorNote error={error} />
      {result ? (
        <div class="test-result" aria-live="polite">
          <h3>Result</h3>
          {result.error ? (
            <div role="alert" class="error">
              <p>
                The action threw {result.error.name}: {result.error.message}
              </p>
              {result.error.stack ? <pre tabIndex={0} aria-label="Stack trace">{result.error.stack}</pre> : null}
            </div>
          ) : (
            <p role="status">The action ran in {result.stats.action_duration_ms} ms.</p>
          )}
          <h4>API calls</h4>
          {result.commands?.length ? (
            <table>
              <caption class="visually-hidden">API calls the action made</caption>
              <thead>
                <tr>
                  <th scope="col">Call</th>
                  <th scope="col">Arguments</th>
                </tr>
              </thead>
              <tbody>
                {result.commands.map((command, index) => (
                  <tr key={index}>
                    <td>
                      <code>api.{command.op}</code>
                    </td>
                    <td>
                      <code>{command.args.map((arg) => JSON.stringify(arg)).join(', ')}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>None.</p>
          )}
          <h4>Logs</h4>
          {result.logs ? (
            <pre tabIndex={0} aria-label="Logs">
              {result.logs}
            </pre>
          ) : (
            <p>Nothing was logged.</p>
          )}
        </div>
      ) : null}
    </form>
  );
}

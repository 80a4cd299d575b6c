import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote, Pager } from '../../components.js';
import type { Action, ActionBinding, ActionsPage, Trigger } from './model.js';
import { triggerLabel } from './triggers.js';

const PICKER_PER_PAGE = 10;
/** A trigger runs at most 20 actions, so its whole flow is one request; the PATCH replaces it whole too. */
const MAX_BINDINGS = 20;

interface Step {
  actionId: string;
  name: string;
  version: number | undefined;
}

const stepOf = (binding: ActionBinding): Step => ({ actionId: binding.action.id, name: binding.display_name, version: binding.action.deployed_version?.number });

function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}

/** Deployed actions of the trigger that could be added, a page at a time. */
function ActionPicker({ api, trigger, inFlow, onAdd }: Pick<PageProps, 'api'> & { trigger: string; inFlow: readonly string[]; onAdd: (step: Step) => void }) {
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ActionsPage<'actions', Action> | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    setError(undefined);
    api<ActionsPage<'actions', Action>>('GET', `/actions/actions?triggerId=${encodeURIComponent(trigger)}&deployed=true&page=${page}&per_page=${PICKER_PER_PAGE}`).then(setList, setError);
  }, [api, trigger, page]);

  return (
    <div class="card">
      <h2>Add an action</h2>
      <ErrorNote error={error} />
      {list ? (
        list.total === 0 ? (
          <p>No deployed action supports this trigger yet: create one in the library and deploy it.</p>
        ) : (
          <>
            <ul class="plain-list">
              {list.actions.map((action) => (
                <li key={action.id}>
                  <span>{action.name}</span>{' '}
                  <button
                    type="button"
                    aria-label={inFlow.includes(action.id) ? `${action.name}: in the flow` : `Add ${action.name} to the flow`}
                    disabled={inFlow.includes(action.id)}
                    onClick={() => onAdd({ actionId: action.id, name: action.name, version: action.deployed_version?.number })}
                  >
                    {inFlow.includes(action.id) ? 'In the flow' : 'Add'}
                  </button>
                </li>
              ))}
            </ul>
            <Pager page={page} perPage={PICKER_PER_PAGE} total={list.total} label="Deployed actions" onPage={setPage} />
          </>
        )
      ) : null}
    </div>
  );
}

/**
 * A trigger's flow: the deployed actions it runs, in order. The order changes by drag and drop or with the move
 * buttons (keyboard and screen readers); nothing changes on the server until "Save flow" sends the list.
 */
export function Flows({ api, trigger }: PageProps & { trigger: string }) {
  const [triggers, setTriggers] = useState<Trigger[]>([]);
  const [saved, setSaved] = useState<Step[] | undefined>();
  const [steps, setSteps] = useState<Step[]>([]);
  const [dragging, setDragging] = useState<number | undefined>();
  const [announcement, setAnnouncement] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<{ triggers: Trigger[] }>('GET', '/actions/triggers').then((answer) => setTriggers(answer.triggers), setError);
  }, [api]);

  useEffect(() => {
    setError(undefined);
    setStatus('');
    setSaved(undefined);
    api<ActionsPage<'bindings', ActionBinding>>('GET', `/actions/triggers/${encodeURIComponent(trigger)}/bindings?per_page=${MAX_BINDINGS}`).then((answer) => {
      const loaded = answer.bindings.map(stepOf);
      setSaved(loaded);
      setSteps(loaded);
    }, setError);
  }, [api, trigger]);

  const changed = saved !== undefined && (saved.length !== steps.length || saved.some((step, index) => step.actionId !== steps[index]?.actionId));

  function move(from: number, to: number) {
    const step = steps[from];
    if (!step || to < 0 || to >= steps.length || from === to) return;
    setSteps(moved(steps, from, to));
    setStatus('');
    setAnnouncement(`${step.name} moved to position ${to + 1} of ${steps.length}.`);
  }

  function remove(index: number) {
    const step = steps[index];
    setSteps(steps.filter((_, other) => other !== index));
    setStatus('');
    if (step) setAnnouncement(`${step.name} removed from the flow (not saved yet).`);
  }

  async function save() {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api<{ bindings: ActionBinding[] }>('PATCH', `/actions/triggers/${encodeURIComponent(trigger)}/bindings`, {
        bindings: steps.map((step) => ({ ref: { type: 'action_id', value: step.actionId }, display_name: step.name })),
      });
      const next = answer.bindings.map(stepOf);
      setSaved(next);
      setSteps(next);
      setStatus('Flow saved.');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section>
      <h1 tabIndex={-1}>Flows</h1>
      <p class="muted">Each trigger runs the deployed actions of its flow, top to bottom.</p>
      <nav aria-label="Triggers" class="subnav">
        <ul>
          {(triggers.length ? triggers : [{ id: trigger, version: '' }]).map((entry) => (
            <li key={entry.id}>
              <a href={`/admin/actions/flows/${entry.id}`} aria-current={entry.id === trigger ? 'page' : undefined}>
                {triggerLabel(entry.id)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="card">
        <h2 id="flow-title">
          {triggerLabel(trigger)} <code>{trigger}</code>
        </h2>
        <p class="visually-hidden" aria-live="polite">
          {announcement}
        </p>
        {saved === undefined && !error ? <p aria-busy="true">Loading…</p> : null}
        {saved !== undefined && steps.length === 0 ? <p>The flow runs no action.</p> : null}
        <ol class="flow" aria-labelledby="flow-title">
          {steps.map((step, index) => (
            <li
              key={step.actionId}
              class={dragging === index ? 'dragging' : undefined}
              draggable
              data-testid={`flow-step-${index}`}
              onDragStart={(event) => {
                setDragging(index);
                event.dataTransfer?.setData('text/plain', step.actionId);
                if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
              }}
              onDragOver={(event) => event.preventDefault()}
              onDrop={(event) => {
                event.preventDefault();
                if (dragging !== undefined) move(dragging, index);
                setDragging(undefined);
              }}
              onDragEnd={() => setDragging(undefined)}
            >
              <span class="grip" aria-hidden="true">
                ⠿
              </span>
              <span class="step-name">
                {index + 1}. {step.name}
                {step.version !== undefined ? <small>version {step.version}</small> : null}
              </span>
              <span class="row-actions">
                <button type="button" aria-label={`Move ${step.name} up`} disabled={index === 0} onClick={() => move(index, index - 1)}>
                  <span aria-hidden="true">↑ </span>Up
                </button>
                <button type="button" aria-label={`Move ${step.name} down`} disabled={index === steps.length - 1} onClick={() => move(index, index + 1)}>
                  <span aria-hidden="true">↓ </span>Down
                </button>
                <button type="button" class="danger" aria-label={`Remove ${step.name} from the flow`} onClick={() => remove(index)}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ol>
        <div class="actions">
          <button type="button" class="primary" disabled={busy || !changed} onClick={() => void save()}>
            Save flow
          </button>
          <button type="button" disabled={busy || !changed} onClick={() => saved && setSteps(saved)}>
            Discard changes
          </button>
          {changed ? <span class="muted">Unsaved changes.</span> : null}
          {status ? <span role="status">{status}</span> : null}
        </div>
        <ErrorNote error={error} />
      </div>
      <ActionPicker api={api} trigger={trigger} inFlow={steps.map((step) => step.actionId)} onAdd={(step) => setSteps([...steps, step])} />
    </section>
  );
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from './api.js';

/** An API error in words: the API's own message, and what the console suggests for the common statuses. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const hint =
    // A 403 for another reason (a feature the tenant has off) says so in its message; only a scope refusal is the role's.
    error instanceof ApiError && error.status === 403 && (error.errorCode ?? 'insufficient_scope') === 'insufficient_scope'
      ? ' Your role does not allow this.'
      : error instanceof ApiError && error.status === 429
        ? ' Too many requests: wait a moment and try again.'
        : '';
  return (
    <p class="error" role="alert">
      {message}
      {hint}
      {error instanceof ApiError && error.errorCode ? <span class="code"> ({error.errorCode})</span> : null}
    </p>
  );
}

/** A destructive action asks first, in a modal dialog (focus trapped by the browser, Escape cancels). */
export function ConfirmDialog(props: { title: string; children: ComponentChildren; confirmLabel: string; onConfirm: () => void; onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onClose={props.onCancel}>
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <div class="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Page controls for a list the server pages (`page`, `per_page`, `include_totals`). */
export function Pager(props: { page: number; perPage: number; total: number; label: string; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / props.perPage));
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={props.page === 0} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {props.page + 1} of {pages} ({props.total} {props.label.toLowerCase()})
      </span>
      <button type="button" disabled={props.page + 1 >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Page controls for a list the server pages by checkpoint (`from`/`take`): forward by its `next`, back by the cursors seen. */
export function CursorPager(props: { label: string; hasPrevious: boolean; next: string | undefined; onPrevious: () => void; onNext: (from: string) => void }) {
  if (!props.hasPrevious && props.next === undefined) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous
      </button>
      <button type="button" disabled={props.next === undefined} onClick={() => props.next !== undefined && props.onNext(props.next)}>
        Next
      </button>
    </nav>
  );
}

/** What a change did, announced politely to screen readers. */
export function StatusNote({ status }: { status: string }) {
  return status ? <p role="status">{status}</p> : null;
}

/** A moment as the administrator's browser writes dates; an absent one as a dash. */
export function when(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** The pages of one area, as a second row of links under its heading (`aria-current` marks the page shown). */
export function SectionNav(props: { label: string; current: string; links: { href: string; label: string }[] }) {
  return (
    <nav class="sections" aria-label={props.label}>
      <ul>
        {props.links.map((link) => (
          <li key={link.href}>
            <a href={link.href} aria-current={link.href === props.current ? 'page' : undefined}>
              {link.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

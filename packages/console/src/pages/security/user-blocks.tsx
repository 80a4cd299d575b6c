import { useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { Radios } from '../../fields.js';

interface Block {
  identifier: string;
  ip: string;
  connection: string;
}

type LookUpBy = 'identifier' | 'user_id';
const BY = [
  { value: 'identifier' as const, label: 'Identifier', hint: 'The e-mail address, username or phone number the user signs in with.' },
  { value: 'user_id' as const, label: 'User ID', hint: 'For example auth0|65f…' },
];

/** The API path of a look-up: `/user-blocks?identifier=` or `/user-blocks/{id}` (the same for lifting the blocks). */
const pathOf = (by: LookUpBy, value: string) => (by === 'identifier' ? `/user-blocks?identifier=${encodeURIComponent(value)}` : `/user-blocks/${encodeURIComponent(value)}`);

/** Brute-force blocks: looked up by what the user signs in with or by their id, lifted after a confirmation. */
export function UserBlocks({ api }: PageProps) {
  const [by, setBy] = useState<LookUpBy>('identifier');
  const [text, setText] = useState('');
  const [shown, setShown] = useState<{ by: LookUpBy; value: string; blocks: Block[] } | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [confirming, setConfirming] = useState(false);

  async function lookUp(event: Event) {
    event.preventDefault();
    const value = text.trim();
    setError(undefined);
    setStatus('');
    setShown(undefined);
    try {
      const found = await api<{ blocked_for: Block[] }>('GET', pathOf(by, value));
      setShown({ by, value, blocks: found.blocked_for });
    } catch (caught) {
      setError(caught);
    }
  }

  async function unblock() {
    setConfirming(false);
    if (!shown) return;
    setError(undefined);
    try {
      await api('DELETE', pathOf(shown.by, shown.value));
      const after = await api<{ blocked_for: Block[] }>('GET', pathOf(shown.by, shown.value));
      setShown({ ...shown, blocks: after.blocked_for });
      setStatus(`${shown.value} is unblocked: they can sign in again.`);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <section>
      <h1 tabIndex={-1}>User blocks</h1>
      <p class="muted">Accounts blocked by brute-force protection after consecutive failed logins. A block lasts a day unless lifted here or by the user’s e-mailed link.</p>
      <form role="search" class="card search" aria-label="Look up blocks" onSubmit={lookUp}>
        <Radios legend="Look up by" name="block-by" choices={BY} selected={by} onChange={setBy} />
        <label for="block-value">{by === 'identifier' ? 'E-mail, username or phone number' : 'User ID'}</label>
        <div class="row">
          <input id="block-value" required maxLength={320} value={text} onInput={(event) => setText(event.currentTarget.value)} />
          <button type="submit">Look up</button>
        </div>
      </form>
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      {shown ? (
        <div class="card">
          <h2>Blocks of {shown.value}</h2>
          {shown.blocks.length === 0 ? (
            <p>{shown.value} is not blocked.</p>
          ) : (
            <>
              <table>
                <caption class="visually-hidden">Blocks of {shown.value}</caption>
                <thead>
                  <tr>
                    <th scope="col">Blocked from IP address</th>
                    <th scope="col">Identifier</th>
                    <th scope="col">Connection</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.blocks.map((block) => (
                    <tr key={`${block.ip} ${block.identifier} ${block.connection}`}>
                      <td>{block.ip}</td>
                      <td>{block.identifier}</td>
                      <td>{block.connection}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div class="actions">
                <button type="button" onClick={() => setConfirming(true)}>
                  Unblock
                </button>
              </div>
            </>
          )}
        </div>
      ) : null}
      {confirming && shown ? (
        <ConfirmDialog title={`Unblock ${shown.value}?`} confirmLabel="Unblock" onConfirm={() => void unblock()} onCancel={() => setConfirming(false)}>
          <p>Logins from every address listed are allowed again, and the count of failed logins starts over.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

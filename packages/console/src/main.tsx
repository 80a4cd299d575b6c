import { render, type ComponentChildren } from 'preact';
import { managementApi } from './api.js';
import { completeSignIn, currentSession, isAdministrator, signIn, signOut } from './auth.js';
import { App } from './app.js';
import { readSettings } from './settings.js';
import './styles.css';

const root = document.getElementById('app');

function Message({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main id="main" class="message">
      <h1>{title}</h1>
      {children}
    </main>
  );
}

async function start() {
  if (!root) return;
  const settings = readSettings();
  let returnTo: string | undefined;
  try {
    returnTo = await completeSignIn(settings);
  } catch (error) {
    render(
      <Message title="Sign-in did not complete">
        <p role="alert">{error instanceof Error ? error.message : String(error)}</p>
        <button type="button" onClick={() => void signIn(settings)}>
          Sign in again
        </button>
      </Message>,
      root,
    );
    return;
  }
  if (returnTo) history.replaceState(null, '', returnTo);
  const session = currentSession();
  if (!session) return signIn(settings);
  if (!isAdministrator(session, settings)) {
    render(
      <Message title="Not an administrator">
        <p role="alert">
          You are signed in as {session.email ?? 'a user'}, who holds no administrator permissions. Only users with the Latchkey Administrator role can use
          the console.
        </p>
        <button type="button" onClick={() => signOut(settings)}>
          Sign out
        </button>
      </Message>,
      root,
    );
    return;
  }
  const api = managementApi(settings, session, () => {
    sessionStorage.clear();
    void signIn(settings);
  });
  render(<App api={api} settings={settings} session={session} onSignOut={() => signOut(settings)} />, root);
}

void start();

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote } from '../components.js';
import { enableConnectionsFor } from '../new-application.js';
import type { Client, ListPage } from '../types.js';

const SYSTEM_CLIENTS = new Set(['latchkey-console', 'latchkey-demo']);

type Flavour = 'library' | 'spa-sdk' | 'express';
const FLAVOURS: { value: Flavour; label: string }[] = [
  { value: 'library', label: 'Browser library' },
  { value: 'spa-sdk', label: 'SPA SDK' },
  { value: 'express', label: 'Express middleware' },
];

/** The code to paste, with this deployment's domain and the application's client ID filled in. */
function snippet(flavour: Flavour, issuer: string, clientId: string): string {
  // Without a scheme the libraries use HTTPS; a local http:// deployment is named with its scheme.
  const domain = issuer.startsWith('https://') ? new URL(issuer).host : issuer;
  switch (flavour) {
    case 'library':
      return `<script src="${issuer}/js/latchkey/10.0.0/latchkey.min.js"></script>
<script>
  const webAuth = new latchkey.WebAuth({
    domain: '${domain}',
    clientID: '${clientId}',
    redirectUri: window.location.origin,
    responseType: 'token id_token',
    scope: 'openid profile email',
  });
  if (window.location.hash) {
    // Back from the hosted login page: the tokens are in the URL's fragment.
    webAuth.parseHash((error, result) => {
      document.body.textContent = error ? error.errorDescription : 'Signed in as ' + result.idTokenPayload.email;
    });
  } else {
    webAuth.authorize(); // the hosted login page
  }
</script>`;
    case 'spa-sdk':
      return `import { createAuth0Client } from '@auth0/auth0-spa-js';

const client = await createAuth0Client({
  domain: '${domain}',
  clientId: '${clientId}',
  authorizationParams: { redirect_uri: window.location.origin },
});
await client.loginWithRedirect();`;
    case 'express':
      return `import express from 'express';
import { auth } from 'express-openid-connect';

const app = express();
app.use(auth({
  issuerBaseURL: '${issuer}',
  baseURL: 'http://localhost:3000',
  clientID: '${clientId}',
  clientSecret: process.env.CLIENT_SECRET, // shown on the application's page
  secret: process.env.SESSION_SECRET,
  authorizationParams: { response_type: 'code' },
}));
app.get('/', (req, res) => res.send(req.oidc.isAuthenticated() ? 'Signed in' : 'Signed out'));
app.listen(3000);`;
  }
}

export function GetStarted({ api, settings }: PageProps) {
  const [clients, setClients] = useState<Client[] | undefined>();
  const [selected, setSelected] = useState<string>('');
  const [flavour, setFlavour] = useState<Flavour>('library');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // Where the administrator's own application runs: never this server's origin, so it is asked for.
  const [appOrigin, setAppOrigin] = useState('http://localhost:8080');

  useEffect(() => {
    api<ListPage<'clients', Client>>('GET', '/clients?include_totals=true&per_page=50&fields=client_id,name,app_type')
      .then((page) => {
        const own = page.clients.filter((client) => !SYSTEM_CLIENTS.has(client.client_id) && client.app_type !== 'non_interactive');
        setClients(own);
        setSelected(own[0]?.client_id ?? '');
      })
      .catch(setError);
  }, [api]);

  async function createFirst(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      let origin: string;
      try {
        origin = new URL(appOrigin.trim()).origin;
      } catch {
        throw new Error('The address of your application must be a URL, such as http://localhost:8080.');
      }
      const created = await api<Client>('POST', '/clients', { name: 'My first application', app_type: 'spa', callbacks: [origin], web_origins: [origin], allowed_logout_urls: [origin] });
      await enableConnectionsFor(api, created.client_id);
      setClients((list) => [created, ...(list ?? [])]);
      setSelected(created.client_id);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section>
      <h1 tabIndex={-1}>Get started</h1>
      <p>Sign users in to your application with Latchkey in three steps: create an application, paste the snippet, allow its URL.</p>
      <ErrorNote error={error} />
      {clients === undefined && !error ? <p aria-busy="true">Loading applications…</p> : null}
      {clients && clients.length === 0 ? (
        <form onSubmit={createFirst} class="card">
          <h2>1. Create your first application</h2>
          <p>
            A single-page application, with the tenant's connections switched on for it. Its address is where users come back after signing in; you can
            change both on its page.
          </p>
          <label for="app-origin">Address of your application</label>
          <input id="app-origin" type="url" required value={appOrigin} aria-describedby="app-origin-hint" onInput={(event) => setAppOrigin(event.currentTarget.value)} />
          <small id="app-origin-hint">The origin your page is served from, e.g. http://localhost:8080 or https://app.example.com.</small>
          <button type="submit" class="primary" disabled={busy}>
            Create my first application
          </button>
        </form>
      ) : null}
      {clients && clients.length > 0 ? (
        <div class="card">
          <h2>Your application</h2>
          <label for="app-select">Application</label>
          <select id="app-select" value={selected} onChange={(event) => setSelected(event.currentTarget.value)}>
            {clients.map((client) => (
              <option key={client.client_id} value={client.client_id}>
                {client.name}
              </option>
            ))}
          </select>
          <p>
            Domain <code>{settings.issuer}</code>, client ID <code data-testid="client-id">{selected}</code>.{' '}
            <a href={`/admin/applications/${encodeURIComponent(selected)}`}>
              Edit its URLs
            </a>
          </p>
          <div role="radiogroup" aria-label="Kind of snippet" class="segmented">
            {FLAVOURS.map((option) => (
              <label key={option.value}>
                <input type="radio" name="flavour" value={option.value} checked={flavour === option.value} onChange={() => setFlavour(option.value)} />
                {option.label}
              </label>
            ))}
          </div>
          <pre class="snippet" tabIndex={0} aria-label="Snippet to paste">
            <code>{snippet(flavour, settings.issuer, selected)}</code>
          </pre>
        </div>
      ) : null}
    </section>
  );
}

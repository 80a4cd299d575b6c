// The demo single-page application. It uses only the public API of the browser library (global `latchkey`).
const config = JSON.parse(document.getElementById('demo-config').textContent);
const scope = 'openid profile email read:current_user create:current_user_metadata update:current_user_metadata delete:current_user_metadata';
const webAuth = new latchkey.WebAuth({
  domain: config.domain,
  clientID: config.clientID,
  redirectUri: config.redirectUri,
  responseType: 'token id_token',
  scope,
  audience: config.audience,
});

// Tokens live in this page's memory only; a reload renews them from the session with checkSession.
let session = null;
const $ = (id) => document.getElementById(id);

function describe(err) {
  return err.description || err.errorDescription || err.error_description || err.error || err.code || String(err.original || 'Something went wrong');
}

function show(message) {
  $('message').textContent = message;
}

function render() {
  $('status').textContent = session ? `Logged in as ${session.idTokenPayload.email || session.idTokenPayload.sub}` : 'Not logged in.';
  if (!session) {
    $('profile').textContent = 'Not logged in.';
    return;
  }
  new latchkey.Management({ domain: config.domain, token: session.accessToken }).getUser(session.idTokenPayload.sub, (err, user) => {
    if (err) return show(`Could not read the profile: ${describe(err)}`);
    $('profile').textContent = JSON.stringify(user, null, 2);
    $('metadata').value = JSON.stringify(user.user_metadata, null, 2);
  });
}

function signedIn(err, result) {
  if (err) return show(describe(err));
  if (!result) return;
  session = result;
  show('');
  render();
}

$('login-redirect').addEventListener('click', () => webAuth.authorize({ prompt: 'login' }));
$('login-popup').addEventListener('click', () => webAuth.popup.authorize({ redirectUri: config.popupRedirectUri, prompt: 'login' }, signedIn));
$('renew').addEventListener('click', () => webAuth.checkSession({}, (err, result) => (err ? show(describe(err)) : signedIn(null, result))));
$('logout').addEventListener('click', () => webAuth.logout({ returnTo: config.redirectUri, clientID: config.clientID }));

$('credentials').addEventListener('submit', (event) => {
  event.preventDefault();
  webAuth.login({ realm: config.databaseConnection, username: $('email').value, password: $('password').value }, (err) => show(describe(err)));
});
$('signup').addEventListener('click', () => {
  webAuth.signup({ connection: config.databaseConnection, email: $('email').value, password: $('password').value }, (err) =>
    show(err ? describe(err) : 'Signed up: now log in.'),
  );
});

$('passwordless').addEventListener('submit', (event) => {
  event.preventDefault();
  webAuth.passwordlessStart({ connection: config.passwordlessConnection, send: 'code', email: $('passwordless-email').value }, (err) =>
    show(err ? describe(err) : 'Code sent: enter it below.'),
  );
});
$('verify-code').addEventListener('click', () => {
  webAuth.passwordlessLogin({ connection: config.passwordlessConnection, email: $('passwordless-email').value, verificationCode: $('code').value }, (err) =>
    show(describe(err)),
  );
});

$('save-metadata').addEventListener('click', () => {
  if (!session) return show('Log in first.');
  let metadata;
  try {
    metadata = JSON.parse($('metadata').value);
  } catch {
    return show('user_metadata must be JSON.');
  }
  new latchkey.Management({ domain: config.domain, token: session.accessToken }).patchUserMetadata(session.idTokenPayload.sub, metadata, (err) => {
    if (err) return show(`Could not save: ${describe(err)}`);
    show('Saved.');
    render();
  });
});

// Back from a redirect: the result is in the fragment. Otherwise, a session at Latchkey may still exist.
if (/access_token|id_token|error/.test(window.location.hash)) {
  webAuth.parseHash({}, (err, result) => {
    history.replaceState(null, '', window.location.pathname);
    signedIn(err, result);
    if (!result) render();
  });
} else {
  webAuth.checkSession({}, (err, result) => (err ? render() : signedIn(null, result)));
}

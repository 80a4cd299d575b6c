import { createHash, X509Certificate, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, exportSPKI, generateKeyPair, jwtVerify, SignJWT, type CryptoKey as JoseKey } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture, passwordRealmForm } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const EDGE_KEY = 'edge-api-key-for-tests-0123456789abcdef';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const certificate = (name: string) => readFileSync(new URL(`./fixtures/mtls-client-${name}.pem`, import.meta.url), 'utf8');
const thumbprint = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');

describe.each(DIALECTS)('client authentication by key and certificate (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  let fx: LoginFixture;
  let tokenUrl: string;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true, env: { LATCHKEY_EDGE_API_KEY: EDGE_KEY } });
    api = managementApi(server, 'socket');
    fx = await provisionLogin(server);
    tokenUrl = `${server.url}/oauth/token`;
  });
  afterAll(async () => server?.close());

  /** A machine-to-machine client with a grant for the fixture API. */
  async function machineClient() {
    const created = await api('POST', '/clients', { name: 'Machine', app_type: 'non_interactive' });
    expect(created.status).toBe(201);
    const clientId = String(created.body.client_id);
    expect((await api('POST', '/client-grants', { client_id: clientId, audience: fx.api.identifier, scope: ['read:things'] })).status).toBe(201);
    return { clientId, secret: String(created.body.client_secret) };
  }

  async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
    const response = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  async function withKey(clientId: string, alg: 'RS256' | 'PS256' = 'RS256') {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    const created = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', name: 'signing key', pem: await exportSPKI(publicKey), alg });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).not.toHaveProperty('pem');
    const credentialId = String(created.body.id);
    const enabled = await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { private_key_jwt: { credentials: [{ id: credentialId }] } } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    return { privateKey, kid: String(created.body.kid), credentialId };
  }

  const assertion = (clientId: string, key: JoseKey, options: { kid?: string; aud?: string; exp?: string; jti?: string; alg?: string } = {}) =>
    new SignJWT({})
      .setProtectedHeader({ alg: options.alg ?? 'RS256', ...(options.kid ? { kid: options.kid } : {}) })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(options.aud ?? `${server.registry.issuer}/`)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? '60s')
      .setJti(options.jti ?? crypto.randomUUID())
      .sign(key);

  it('manages credentials: public keys are checked, only public material is kept, methods name existing credentials of the right type', async () => {
    const { clientId } = await machineClient();
    const bad = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, errorCode: 'invalid_body' });
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', privateKey as unknown as webcrypto.CryptoKey)).toString('base64');
    const privatePem = `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----`;
    expect((await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: privatePem })).status).toBe(400);
    expect((await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'x509_cert', pem: 'not a certificate' })).status).toBe(400);
    expect((await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'cert_subject_dn' })).status).toBe(400);
    expect((await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: 'x', extra: 1 })).status).toBe(400);
    expect((await api('POST', `/clients/nope/credentials`, { credential_type: 'cert_subject_dn', subject_dn: 'CN=x' })).status).toBe(404);

    const cert = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'x509_cert', name: 'cert', pem: certificate('one') });
    expect(cert.status).toBe(201);
    expect(cert.body).toMatchObject({ credential_type: 'x509_cert', thumbprint_sha256: thumbprint(certificate('one')), subject_dn: 'C=NL,O=Latchkey Tests,CN=mtls-client-one' });
    expect((await api('GET', `/clients/${clientId}/credentials`)).body).toHaveLength(1);
    expect((await api('GET', `/clients/${clientId}/credentials/${String(cert.body.id)}`)).body).toMatchObject({ id: cert.body.id });
    expect((await api('GET', `/clients/${clientId}/credentials/cred_nope`)).status).toBe(404);
    // private_key_jwt needs public_key credentials; an unknown id is refused; neither is half-applied.
    const wrongType = await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { private_key_jwt: { credentials: [{ id: String(cert.body.id) }] } } });
    expect(wrongType.status).toBe(400);
    expect((await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { tls_client_auth: { credentials: [{ id: 'cred_missing' }] } } })).status).toBe(400);
    expect((await api('GET', `/clients/${clientId}`)).body.client_authentication_methods).toBeUndefined();
    // A credential in use cannot be deleted until no method names it.
    expect((await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { self_signed_tls_client_auth: { credentials: [{ id: String(cert.body.id) }] } } })).status).toBe(200);
    expect((await api('DELETE', `/clients/${clientId}/credentials/${String(cert.body.id)}`)).status).toBe(400);
    expect((await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: null })).status).toBe(200);
    expect((await api('DELETE', `/clients/${clientId}/credentials/${String(cert.body.id)}`)).status).toBe(204);
    expect((await api('GET', `/clients/${clientId}/credentials`)).body).toHaveLength(0);
    expect(JSON.stringify((await api('GET', `/clients/${clientId}`)).body)).not.toContain('BEGIN');
  });

  it('refuses a second credential with the same kid, takes expiry from a certificate, and ignores expired credentials', async () => {
    const { clientId } = await machineClient();
    const { privateKey, kid } = await withKey(clientId);
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const again = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: await exportSPKI(publicKey), kid });
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('credential_conflict');
    const fromCert = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: certificate('one'), parse_expiry_from_cert: true });
    expect(fromCert.body.expires_at).toBe(new Date(new X509Certificate(certificate('one')).validTo).toISOString());

    const form = async () => ({ grant_type: 'client_credentials', audience: fx.api.identifier, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId, privateKey, { kid }) });
    expect((await token(await form())).status).toBe(200);
    // The same key registered again with an expiry in the past no longer authenticates.
    const listed = (await api('GET', `/clients/${clientId}/credentials`)).body;
    expect(listed).toHaveLength(2);
    const { publicKey: expiredPublic, privateKey: expiredPrivate } = await generateKeyPair('RS256', { extractable: true });
    const expired = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: await exportSPKI(expiredPublic), expires_at: '2020-01-01T00:00:00.000Z' });
    expect((await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { private_key_jwt: { credentials: [{ id: String(expired.body.id) }] } } })).status).toBe(200);
    const stale = await token({ grant_type: 'client_credentials', audience: fx.api.identifier, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId, expiredPrivate, { kid: String(expired.body.kid) }) });
    expect(stale.status).toBe(401);
  });

  it('private_key_jwt with openid-client: client credentials, then the secret no longer works', async () => {
    const { clientId, secret } = await machineClient();
    const { privateKey, kid } = await withKey(clientId);
    const config = await oidc.discovery(new URL(`${server.url}/`), clientId, undefined, oidc.PrivateKeyJwt({ key: privateKey as unknown as CryptoKey, kid }), {
      execute: [oidc.allowInsecureRequests],
    });
    const tokens = await oidc.clientCredentialsGrant(config, { audience: fx.api.identifier });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: `${clientId}@clients`, aud: fx.api.identifier, scope: 'read:things' });
    const bySecret = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, audience: fx.api.identifier });
    expect(bySecret.status).toBe(401);
    expect(bySecret.body.error).toBe('invalid_client');
  });

  it('refuses replayed, foreign-audience, long-lived, unsigned and wrongly signed assertions', async () => {
    const { clientId } = await machineClient();
    const { privateKey, kid } = await withKey(clientId, 'PS256');
    const form = (jwt: string) => ({ grant_type: 'client_credentials', audience: fx.api.identifier, client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });
    const good = await assertion(clientId, privateKey, { kid, alg: 'PS256', aud: `${server.registry.issuer}/oauth/token` });
    expect((await token({ ...form(good), client_id: clientId })).status).toBe(200);
    const replay = await token({ ...form(good), client_id: clientId });
    expect(replay).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    // client_id may be left out: the assertion names the client.
    expect((await token(form(await assertion(clientId, privateKey, { kid, alg: 'PS256' })))).status).toBe(200);
    expect((await token(form(await assertion(clientId, privateKey, { kid, alg: 'PS256', aud: 'https://elsewhere.example/' })))).status).toBe(401);
    expect((await token(form(await assertion(clientId, privateKey, { kid, alg: 'PS256', exp: '2h' })))).status).toBe(401);
    expect((await token(form(await assertion(clientId, privateKey, { kid, alg: 'PS256', exp: '-5m' })))).status).toBe(401);
    const other = await generateKeyPair('PS256');
    expect((await token(form(await assertion(clientId, other.privateKey, { kid, alg: 'PS256' })))).status).toBe(401);
    const [header = '', payload = ''] = good.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
    expect((await token(form(none))).status).toBe(401);
    expect((await token(form(`${header}.${payload}.AAAA`))).status).toBe(401);
    expect((await token({ ...form('not.a.jwt'), client_id: clientId })).status).toBe(401);
    expect((await token({ ...form(good), client_assertion_type: 'urn:other' })).body.error).toBe('invalid_request');
  });

  it('mTLS through the edge: self-signed and CA-signed certificates, the edge key checked, access tokens bound to the certificate', async () => {
    const { clientId } = await machineClient();
    const one = certificate('one');
    const registered = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'x509_cert', pem: one });
    const subject = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'cert_subject_dn', subject_dn: 'C=NL, O=Latchkey Tests, CN=mtls-client-two' });
    expect((await api('PATCH', `/clients/${clientId}`, {
      client_authentication_methods: {
        self_signed_tls_client_auth: { credentials: [{ id: String(registered.body.id) }] },
        tls_client_auth: { credentials: [{ id: String(subject.body.id) }] },
      },
    })).status).toBe(200);
    const form = { grant_type: 'client_credentials', client_id: clientId, audience: fx.api.identifier };
    const edge = (pem: string, verified = 'SUCCESS', key = EDGE_KEY) => ({ 'cname-api-key': key, 'client-certificate': encodeURIComponent(pem), 'client-certificate-ca-verified': verified });

    const selfSigned = await token(form, edge(one, 'FAILED:self signed'));
    expect(selfSigned.status, JSON.stringify(selfSigned.body)).toBe(200);
    expect(decodeJwt(selfSigned.body.access_token ?? '').cnf).toEqual({ 'x5t#S256': thumbprint(one) });

    const caSigned = await token(form, edge(certificate('two')));
    expect(caSigned.status).toBe(200);
    expect(decodeJwt(caSigned.body.access_token ?? '').cnf).toEqual({ 'x5t#S256': thumbprint(certificate('two')) });
    // The subject-DN method needs the edge to have verified the chain.
    expect((await token(form, edge(certificate('two'), 'FAILED:unknown ca'))).status).toBe(401);
    // Without the edge's key the certificate is not believed; without a certificate the client cannot authenticate.
    expect((await token(form, edge(one, 'SUCCESS', 'x'.repeat(EDGE_KEY.length)))).status).toBe(401);
    expect((await token(form, { 'client-certificate': encodeURIComponent(one) })).status).toBe(401);
    expect((await token(form)).status).toBe(401);
    expect((await token(form, edge('garbage'))).body.error).toBe('invalid_request');
  });

  it('a certificate-bound user token works at /userinfo only with the same certificate', async () => {
    const created = await api('POST', '/clients', { name: 'Bound web', app_type: 'regular_web', grant_types: ['http://auth0.com/oauth/grant-type/password-realm'] });
    const clientId = String(created.body.client_id);
    const connections = (await api('GET', '/connections')).body as unknown as { id: string; name: string; enabled_clients: string[] }[];
    const connection = connections.find((candidate) => candidate.name === fx.connection);
    expect((await api('PATCH', `/connections/${connection?.id ?? ''}`, { enabled_clients: [...(connection?.enabled_clients ?? []), clientId] })).status).toBe(200);
    const one = certificate('one');
    const registered = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'x509_cert', pem: one });
    await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { self_signed_tls_client_auth: { credentials: [{ id: String(registered.body.id) }] } } });
    const edge = (pem: string) => ({ 'cname-api-key': EDGE_KEY, 'client-certificate': encodeURIComponent(pem), 'client-certificate-ca-verified': 'FAILED:self signed' });
    const issued = await token(
      { grant_type: 'http://auth0.com/oauth/grant-type/password-realm', client_id: clientId, username: fx.user.email, password: fx.user.password, realm: fx.connection, scope: 'openid email' },
      edge(one),
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    // No API asked for: the token is opaque (ours to read); the binding travels inside it.
    expect(server.registry.opaqueTokens.open(issued.body.access_token ?? '')?.cnf).toEqual({ 'x5t#S256': thumbprint(one) });
    const userinfo = (headers: Record<string, string>) => fetch(`${server.url}/userinfo`, { headers: { authorization: `Bearer ${issued.body.access_token ?? ''}`, ...headers } });
    expect((await userinfo({})).status).toBe(401);
    expect((await userinfo(edge(certificate('two')))).status).toBe(401);
    const answered = await userinfo(edge(one));
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ sub: fx.user.userId, email: fx.user.email });
  });

  it('HS256 ID tokens: signed with the secret at the token endpoint, refused from the front channel', async () => {
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { jwt_configuration: { alg: 'HS256' } })).status).toBe(200);
    try {
      const issued = await token(passwordRealmForm(fx, { scope: 'openid email' }));
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const { payload, protectedHeader } = await jwtVerify(issued.body.id_token ?? '', new TextEncoder().encode(fx.web.clientSecret), {
        issuer: `${server.registry.issuer}/`,
        audience: fx.web.clientId,
      });
      expect(protectedHeader.alg).toBe('HS256');
      expect(payload.email).toBe(fx.user.email);
      const front = await fetch(
        `${server.url}/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'id_token', nonce: 'n', state: 's' }).toString()}`,
        { redirect: 'manual' },
      );
      expect(front.status).toBe(302);
      expect(new URL(front.headers.get('location') ?? '').hash).toContain('error=unauthorized_client');
    } finally {
      await api('PATCH', `/clients/${fx.web.clientId}`, { jwt_configuration: { alg: 'RS256' } });
    }
  });
});

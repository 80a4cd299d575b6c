import type { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

/**
 * The multi-factor part of the Management API through the official SDK (npm auth0) over HTTPS, on both dialects:
 * factors and policy, a user's authentication methods and enrollments, Guardian enrollments and tickets, the
 * recovery code and remembered browsers; secrets at rest; every change in the tenant log.
 */
describe.each(DIALECTS)('Management API: guardian and authentication methods (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let api: ManagementApi;
  let userId = '';

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect });
    management = sdk.management;
    api = managementApi(sdk.server);
    await management.connections.create({ name: `mfa-db-${dialect}`, strategy: 'auth0' });
    const user = await management.users.create({ connection: `mfa-db-${dialect}`, email: `mfa@guardian.example`, password: 'A guardian password 123!' });
    userId = String(user.user_id);
  }, 60_000);
  afterAll(async () => sdk?.close());

  it('lists the factors, enables and disables them, refuses push-notification and duo, and sets the policy', async () => {
    const factors = await management.guardian.factors.list();
    expect(factors.map((factor) => factor.name)).toEqual(['sms', 'push-notification', 'email', 'duo', 'otp', 'webauthn-roaming', 'webauthn-platform', 'recovery-code']);
    expect(factors.every((factor) => factor.enabled === false)).toBe(true);
    expect(await management.guardian.factors.set('otp', { enabled: true })).toEqual({ enabled: true });
    await management.guardian.factors.set('recovery-code', { enabled: true });
    await management.guardian.factors.set('sms', { enabled: true });
    await management.guardian.factors.set('sms', { enabled: false });
    const after = await management.guardian.factors.list();
    expect(after.filter((factor) => factor.enabled).map((factor) => factor.name)).toEqual(['otp', 'recovery-code']);

    for (const name of ['push-notification', 'duo'] as const) {
      const refused = await rejection(management.guardian.factors.set(name, { enabled: true }));
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toMatchObject({ errorCode: 'invalid_body', message: expect.stringContaining('not supported') });
    }
    expect((await api('PUT', '/guardian/factors/carrier-pigeon', { enabled: true })).status).toBe(400);
    expect((await api('PUT', '/guardian/factors/otp', { enabled: 'yes' })).status).toBe(400);

    expect(await management.guardian.policies.list()).toEqual([]);
    expect(await management.guardian.policies.set(['all-applications'])).toEqual(['all-applications']);
    expect(await management.guardian.policies.list()).toEqual(['all-applications']);
    expect((await rejection(management.guardian.policies.set(['confidence-score']))).statusCode).toBe(400);
    expect(await management.guardian.policies.set([])).toEqual([]);
  });

  it('creates, lists, reads, renames and deletes a user\u2019s authentication methods, with secrets sealed at rest', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DP';
    const totp = await management.users.authenticationMethods.create(userId, { type: 'totp', name: 'Phone app', totp_secret: secret });
    expect(totp).toMatchObject({ type: 'totp', name: 'Phone app', totp_secret: secret, id: expect.stringMatching(/^totp\|dev_/) });
    const phone = await management.users.authenticationMethods.create(userId, { type: 'phone', phone_number: '+15550100', preferred_authentication_method: 'sms' });
    expect(phone).toMatchObject({ type: 'phone', phone_number: '+15550100', id: expect.stringMatching(/^phone\|dev_/) });
    const email = await management.users.authenticationMethods.create(userId, { type: 'email', email: 'second@guardian.example' });

    const listed = await management.users.authenticationMethods.list(userId);
    expect(listed.data.map((method) => method.type)).toEqual(['totp', 'phone', 'email']);
    expect(listed.data.every((method) => method.confirmed === true)).toBe(true);
    expect(JSON.stringify(listed.data)).not.toContain(secret);
    expect(await api('GET', `/users/${encodeURIComponent(userId)}/authentication-methods?include_totals=true&per_page=1&page=1`)).toMatchObject({ status: 200, body: { authenticators: [{ type: 'phone' }], start: 1, limit: 1, total: 3 } });

    const stored = await sdk.server.registry.storage.authenticators.get(sdk.server.registry.tenantId, String(totp.id).split('|')[1] ?? '');
    expect(stored?.secretSealed).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(secret);

    expect(await management.users.authenticationMethods.get(userId, String(phone.id))).toMatchObject({ id: phone.id, phone_number: '+15550100', preferred_authentication_method: 'sms' });
    expect(await management.users.authenticationMethods.update(userId, String(phone.id), { name: 'Work phone', preferred_authentication_method: 'voice' })).toMatchObject({ name: 'Work phone', preferred_authentication_method: 'voice' });
    expect((await rejection(management.users.authenticationMethods.update(userId, String(email.id), { preferred_authentication_method: 'sms' }))).statusCode).toBe(400);

    // The Guardian enrollments are the authenticator app and the phone.
    const enrollments = await management.users.enrollments.get(userId);
    expect(enrollments.map((enrollment) => enrollment.auth_method)).toEqual(['authenticator', 'sms']);
    const sms = enrollments[1];
    expect(await management.guardian.enrollments.get(String(sms?.id))).toMatchObject({ id: sms?.id, status: 'confirmed', phone_number: '+15550100' });
    await management.guardian.enrollments.delete(String(sms?.id));
    expect((await rejection(management.guardian.enrollments.get(String(sms?.id)))).body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_enrollment' });

    await management.users.authenticationMethods.delete(userId, String(email.id));
    const missing = await rejection(management.users.authenticationMethods.get(userId, String(email.id)));
    expect(missing.body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_authentication_method', message: 'The authentication method does not exist.' });

    // Missing fields and unknown users are refused before anything is written.
    expect((await api('POST', `/users/${encodeURIComponent(userId)}/authentication-methods`, { type: 'totp' })).status).toBe(400);
    expect((await api('POST', `/users/${encodeURIComponent(userId)}/authentication-methods`, { type: 'phone', phone_number: '555' })).status).toBe(400);
    expect((await api('PUT', `/users/${encodeURIComponent(userId)}/authentication-methods`, [{ type: 'email', email: 'x@guardian.example' }, { type: 'totp' }])).status).toBe(400);
    expect((await management.users.authenticationMethods.list(userId)).data).toHaveLength(1);
    expect((await rejection(management.users.authenticationMethods.list('auth0|nobody'))).statusCode).toBe(404);

    const replaced = await management.users.authenticationMethods.set(userId, [{ type: 'email', email: 'third@guardian.example' }]);
    expect(replaced.map((method) => method.type)).toEqual(['email']);
    await management.users.authenticationMethods.deleteAll(userId);
    expect((await management.users.authenticationMethods.list(userId)).data).toEqual([]);
  });

  it('answers a new recovery code once and keeps only its hash; invalidates remembered browsers; makes enrollment tickets', async () => {
    const first = await management.users.regenerateRecoveryCode(userId);
    expect(first.recovery_code).toMatch(/^[A-Z0-9]{24}$/);
    const second = await management.users.regenerateRecoveryCode(userId);
    expect(second.recovery_code).not.toBe(first.recovery_code);
    const held = (await sdk.server.registry.storage.authenticators.listOfUser(sdk.server.registry.tenantId, userId)).filter((record) => record.type === 'recovery-code');
    expect(held).toHaveLength(1);
    expect(JSON.stringify(held)).not.toContain(String(second.recovery_code));

    await management.users.multifactor.invalidateRememberBrowser(userId);
    expect(await sdk.server.registry.storage.authenticators.rememberedBrowsersRevokedAt(sdk.server.registry.tenantId, userId)).toEqual(expect.any(String));
    expect((await rejection(management.users.multifactor.invalidateRememberBrowser('auth0|nobody'))).statusCode).toBe(404);

    const ticket = await management.guardian.enrollments.createTicket({ user_id: userId });
    expect(ticket.ticket_url).toMatch(new RegExp(`^${sdk.server.url}/u/mfa/enroll\\?ticket=`));
    const handle = new URL(String(ticket.ticket_url)).searchParams.get('ticket') ?? '';
    const tickets = await sdk.server.registry.storage.artifacts.listLive(sdk.server.registry.tenantId, 'mfa_enrollment_ticket', { subject: userId }, new Date().toISOString());
    expect(tickets).toHaveLength(1);
    expect(tickets[0]?.id).toBe(ticket.ticket_id);
    expect(JSON.stringify(tickets)).not.toContain(handle);
    expect((await rejection(management.guardian.enrollments.createTicket({ user_id: 'auth0|nobody' }))).statusCode).toBe(404);

    await sdk.server.registry.events.flush();
    const types = ((await api('GET', `/logs?q=${encodeURIComponent(`user_id:"${userId}"`)}&per_page=100`)).body as unknown as { type: string }[]).map((event) => event.type);
    for (const type of ['gd_enrollment_complete', 'gd_unenroll', 'gd_update_device_account', 'gd_enrollment_ticket']) expect(types, type).toContain(type);
  });

  it('needs the platform\u2019s scopes', async () => {
    const readOnly = await sdk.server.token('read:guardian_factors read:authentication_methods');
    expect((await api('GET', '/guardian/factors', undefined, readOnly)).status).toBe(200);
    const refused = await api('PUT', '/guardian/factors/otp', { enabled: true }, readOnly);
    expect(refused.body).toMatchObject({ statusCode: 403, errorCode: 'insufficient_scope', message: 'Insufficient scope, expected any of: update:guardian_factors' });
    expect((await api('PUT', '/guardian/policies', [], readOnly)).status).toBe(403);
    expect((await api('DELETE', `/users/${encodeURIComponent(userId)}/authentication-methods`, undefined, readOnly)).status).toBe(403);
  });

  it('removes a user\u2019s authenticators with the user', async () => {
    const other = await management.users.create({ connection: `mfa-db-${dialect}`, email: `gone@guardian.example`, password: 'A guardian password 123!' });
    await management.users.authenticationMethods.create(String(other.user_id), { type: 'email', email: 'gone2@guardian.example' });
    await management.users.delete(String(other.user_id));
    expect(await sdk.server.registry.storage.authenticators.listOfUser(sdk.server.registry.tenantId, String(other.user_id))).toEqual([]);
  });
});

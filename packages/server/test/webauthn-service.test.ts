import pino from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../src/services/events/event.js';
import { eventRecorder, type EventRecorder } from '../src/services/events/recorder.js';
import { relyingPartyOf, webauthn, type WebAuthn } from '../src/services/mfa/webauthn.js';
import type { Storage } from '../src/storage/storage.js';
import { launchChromium } from './support/chromium.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/services.js';
import { openDevice, PLATFORM, SECURITY_KEY, startCeremonyPage, type Device } from './support/webauthn-page.js';

/**
 * The WebAuthn service against a real Chromium: CDP virtual authenticators (a USB security key, a platform
 * authenticator with user verification) answer `navigator.credentials.create/get` on a page served at
 * http://localhost:<port>, with the options the service produced; the service verifies what the browser answered
 * and keeps the credentials in a real database (SQLite and PostgreSQL).
 */
let browser: Browser;
let page: { origin: string; close(): Promise<void> };
let elsewhere: { origin: string; close(): Promise<void> };

beforeAll(async () => {
  [browser, page, elsewhere] = await Promise.all([launchChromium(), startCeremonyPage(), startCeremonyPage()]);
});
afterAll(async () => {
  await browser?.close();
  await page?.close();
  await elsewhere?.close();
});

describe.each(DIALECTS)('WebAuthn service (%s)', (dialect) => {
  const tenant = 'tenant-webauthn';
  let database: TestDatabase;
  let storage: Storage;
  let events: EventRecorder;
  let service: WebAuthn;
  const devices: Device[] = [];
  const device = async (kind: typeof SECURITY_KEY, origin = page.origin) => {
    const opened = await openDevice(browser, origin, kind);
    devices.push(opened);
    return opened;
  };
  const alice = { id: 'auth0|alice', name: 'alice@example.com' };
  const bob = { id: 'auth0|bob', name: 'bob@example.com' };

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
    await storage.tenants.insertIfMissing(tenant, {}, new Date().toISOString());
    events = eventRecorder({
      storage,
      tenantId: tenant,
      hostname: 'localhost',
      retentionDays: 30,
      names: { clientName: async () => undefined, connection: async () => undefined, userName: async () => undefined },
      now: () => new Date(),
      log: pino({ level: 'silent' }),
      intervalMs: 10,
    });
    service = webauthn({ storage, tenantId: tenant, events, relyingParty: relyingPartyOf(`${page.origin}/`, 'Test Tenant'), now: () => new Date() });
  });
  afterAll(async () => {
    for (const opened of devices) await opened.close();
    await events?.close();
    await storage?.close();
    await database?.cleanup();
  });

  it('enrolls a security key (cross-platform, no user verification) and signs in with it as a second factor; the key is refused twice', async () => {
    const key = await device(SECURITY_KEY);
    const { options, challenge } = await service.registrationOptions(alice, 'webauthn-roaming');
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Test Tenant' },
      user: { name: 'alice@example.com' },
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { authenticatorAttachment: 'cross-platform', userVerification: 'discouraged' },
    });
    const created = await key.create(options);
    const enrolled = await service.verifyRegistration({ userId: alice.id, kind: 'webauthn-roaming', expectedChallenge: challenge, response: created, name: 'Blue key', origin: { ip: '10.0.0.1' } });
    if (!enrolled.ok) throw new Error(`refused: ${enrolled.reason} ${enrolled.detail}`);
    expect(enrolled.record).toMatchObject({ userId: alice.id, type: 'webauthn-roaming', status: 'confirmed', name: 'Blue key', credentialId: created.id });
    expect(enrolled.record.data).toMatchObject({ publicKey: expect.stringMatching(/^[A-Za-z0-9_-]+$/), transports: ['usb'], aaguid: expect.any(String), backedUp: false });
    // The same credential again (a resent form, or another user): the unique credential id refuses it.
    expect(await service.verifyRegistration({ userId: bob.id, kind: 'webauthn-roaming', expectedChallenge: challenge, response: created })).toMatchObject({ ok: false, reason: 'credential_exists' });
    // A new registration excludes it, so the browser will not make a second credential on the same key.
    expect((await service.registrationOptions(alice, 'passkey')).options.excludeCredentials).toEqual([{ id: created.id, type: 'public-key', transports: ['usb'] }]);

    await events.flush();
    const logged = (await storage.logEvents.list<LogEvent>(tenant, { limit: 100, sort: 'asc' })).events.filter((event) => event.type === 'gd_enrollment_complete');
    expect(logged).toEqual([expect.objectContaining({ user_id: alice.id, ip: '10.0.0.1', details: { authenticator_type: 'webauthn-roaming', id: `webauthn-roaming|${enrolled.record.id}` } })]);

    const login = await service.authenticationOptions(alice.id);
    expect(login.options.allowCredentials).toEqual([{ id: created.id, type: 'public-key', transports: ['usb'] }]);
    const asserted = await key.get(login.options);
    const result = await service.verifyAuthentication({ expectedChallenge: login.challenge, response: asserted, userId: alice.id });
    if (!result.ok) throw new Error(`refused: ${result.reason} ${result.detail}`);
    expect(result).toMatchObject({ userId: alice.id, amr: ['hwk'], userVerified: false });
    const [held] = await key.credentials();
    expect(held?.signCount).toBeGreaterThan(0);
    expect(await storage.authenticators.get(tenant, enrolled.record.id)).toMatchObject({ signCount: held?.signCount, lastAuthAt: expect.any(String) });

    // replay: the same assertion again (even with its challenge) does not raise the counter.
    expect(await service.verifyAuthentication({ expectedChallenge: login.challenge, response: asserted, userId: alice.id })).toMatchObject({ ok: false, reason: 'counter_replayed' });
    // A second factor cannot sign in alone (no user named), and it is not Bob's.
    const other = await service.authenticationOptions(alice.id);
    const next = await key.get(other.options);
    expect(await service.verifyAuthentication({ expectedChallenge: other.challenge, response: next })).toMatchObject({ ok: false, reason: 'credential_not_allowed' });
    expect(await service.verifyAuthentication({ expectedChallenge: other.challenge, response: next, userId: bob.id })).toMatchObject({ ok: false, reason: 'credential_not_allowed' });
    // Refusals touch nothing: the next assertion is still accepted.
    expect(await service.verifyAuthentication({ expectedChallenge: other.challenge, response: next, userId: alice.id })).toMatchObject({ ok: true });
  });

  it('refuses a credential created for another challenge or on another origin', async () => {
    const key = await device(SECURITY_KEY);
    const first = await service.registrationOptions(bob, 'webauthn-roaming');
    const second = await service.registrationOptions(bob, 'webauthn-roaming');
    expect(second.challenge).not.toBe(first.challenge);
    const created = await key.create(first.options);
    const wrongChallenge = await service.verifyRegistration({ userId: bob.id, kind: 'webauthn-roaming', expectedChallenge: second.challenge, response: created });
    expect(wrongChallenge).toMatchObject({ ok: false, reason: 'invalid_response', detail: expect.stringContaining('challenge') });

    // The same RP ID (localhost) on another port is another origin: a page there cannot enroll for this one.
    const phishing = await device(SECURITY_KEY, elsewhere.origin);
    const options = await service.registrationOptions(bob, 'webauthn-roaming');
    const fromElsewhere = await phishing.create(options.options);
    expect(await service.verifyRegistration({ userId: bob.id, kind: 'webauthn-roaming', expectedChallenge: options.challenge, response: fromElsewhere })).toMatchObject({
      ok: false,
      reason: 'invalid_response',
      detail: expect.stringContaining('origin'),
    });

    // Enrolled properly, then asserted on the other origin or for another challenge: refused as well.
    const enrolled = await service.verifyRegistration({ userId: bob.id, kind: 'webauthn-roaming', expectedChallenge: first.challenge, response: created });
    expect(enrolled.ok).toBe(true);
    const login = await service.authenticationOptions(bob.id);
    const asserted = await key.get(login.options);
    const later = await service.authenticationOptions(bob.id);
    expect(await service.verifyAuthentication({ expectedChallenge: later.challenge, response: asserted, userId: bob.id })).toMatchObject({ ok: false, reason: 'invalid_response' });
    expect(await storage.authenticators.listOfUser(tenant, bob.id)).toHaveLength(1);
  });

  it('enrolls a platform authenticator with user verification required, and proves it', async () => {
    const laptop = await device({ ...PLATFORM, hasResidentKey: false });
    const carol = { id: 'auth0|carol', name: 'carol@example.com', displayName: 'Carol' };
    const { options, challenge } = await service.registrationOptions(carol, 'webauthn-platform');
    expect(options.authenticatorSelection).toMatchObject({ authenticatorAttachment: 'platform', userVerification: 'required' });
    expect(options.user.displayName).toBe('Carol');
    const enrolled = await service.verifyRegistration({ userId: carol.id, kind: 'webauthn-platform', expectedChallenge: challenge, response: await laptop.create(options) });
    if (!enrolled.ok) throw new Error(`refused: ${enrolled.reason} ${enrolled.detail}`);
    expect(enrolled.record).toMatchObject({ type: 'webauthn-platform', data: { transports: ['internal'], userVerified: true } });

    const login = await service.authenticationOptions(carol.id, ['webauthn-platform']);
    expect(login.options.userVerification).toBe('required');
    const result = await service.verifyAuthentication({ expectedChallenge: login.challenge, response: await laptop.get(login.options), userId: carol.id });
    expect(result).toMatchObject({ ok: true, userId: carol.id, amr: ['hwk'], userVerified: true });
    // A platform authenticator must verify its user at every use: an assertion with user presence only is refused.
    const unverified = await device({ ...SECURITY_KEY, transport: 'internal' });
    const erin = { id: 'auth0|erin', name: 'erin@example.com' };
    const presenceOnly = await service.registrationOptions(erin, 'webauthn-platform');
    const refused = await unverified.create({ ...presenceOnly.options, authenticatorSelection: { authenticatorAttachment: 'platform', userVerification: 'discouraged' } });
    expect(await service.verifyRegistration({ userId: erin.id, kind: 'webauthn-platform', expectedChallenge: presenceOnly.challenge, response: refused })).toMatchObject({
      ok: false,
      reason: 'invalid_response',
      detail: expect.stringContaining('verif'),
    });
    // Options for kinds the user has none of offer nothing to prove.
    expect((await service.authenticationOptions(carol.id, ['webauthn-roaming'])).options.allowCredentials).toEqual([]);
  });

  it('signs in with a discoverable passkey without a user name, and tells whose it is', async () => {
    const phone = await device(PLATFORM);
    const dave = { id: 'auth0|dave', name: 'dave@example.com' };
    const { options, challenge } = await service.registrationOptions(dave, 'passkey');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' });
    expect(options.authenticatorSelection?.authenticatorAttachment).toBeUndefined();
    const enrolled = await service.verifyRegistration({ userId: dave.id, kind: 'passkey', expectedChallenge: challenge, response: await phone.create(options) });
    if (!enrolled.ok) throw new Error(`refused: ${enrolled.reason} ${enrolled.detail}`);
    expect((await phone.credentials()).map((c) => c.isResidentCredential)).toEqual([true]);

    const login = await service.authenticationOptions();
    expect(login.options.allowCredentials).toEqual([]);
    const asserted = await phone.get(login.options);
    expect(asserted.response.userHandle).toEqual(expect.any(String));
    const result = await service.verifyAuthentication({ expectedChallenge: login.challenge, response: asserted });
    expect(result).toMatchObject({ ok: true, userId: dave.id, amr: ['hwk'], userVerified: true, record: { id: enrolled.record.id, type: 'passkey' } });
    // Named for a user it is not theirs: refused.
    const again = await service.authenticationOptions();
    expect(await service.verifyAuthentication({ expectedChallenge: again.challenge, response: await phone.get(again.options), userId: alice.id })).toMatchObject({
      ok: false,
      reason: 'credential_not_allowed',
    });
    // binding: a credential made for Dave's user handle but enrolled (by a confused caller) for Eve signs no one in.
    const mixUp = await service.registrationOptions(dave, 'passkey');
    const tablet = await device(PLATFORM);
    const eves = await service.verifyRegistration({ userId: 'auth0|eve', kind: 'passkey', expectedChallenge: mixUp.challenge, response: await tablet.create(mixUp.options) });
    expect(eves.ok).toBe(true);
    const asEve = await service.authenticationOptions();
    expect(await service.verifyAuthentication({ expectedChallenge: asEve.challenge, response: await tablet.get(asEve.options) })).toMatchObject({ ok: false, reason: 'credential_not_allowed' });
    // A credential of no authenticator (removed since): unknown.
    await storage.authenticators.remove(tenant, enrolled.record.id);
    const last = await service.authenticationOptions();
    expect(await service.verifyAuthentication({ expectedChallenge: last.challenge, response: await phone.get(last.options) })).toMatchObject({ ok: false, reason: 'unknown_credential' });
  });
});

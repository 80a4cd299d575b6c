import { createServer, type Server } from 'node:http';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';

/**
 * The browser side of a WebAuthn ceremony as the hosted pages will run it: the options JSON a service produced
 * become `navigator.credentials.create/get` arguments (base64url fields to ArrayBuffers), and the credential
 * becomes the JSON the service verifies. Written out here rather than with a browser library, so the page holds
 * nothing but the conversions the WebAuthn JSON encoding needs.
 */
const PAGE_SCRIPT = `
const toBuffer = (text) => {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
};
const toText = (buffer) => {
  let binary = '';
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
};
const descriptors = (list) => (list || []).map((c) => ({ ...c, id: toBuffer(c.id) }));
window.createCredential = async (options) => {
  const publicKey = { ...options, challenge: toBuffer(options.challenge), user: { ...options.user, id: toBuffer(options.user.id) }, excludeCredentials: descriptors(options.excludeCredentials) };
  const credential = await navigator.credentials.create({ publicKey });
  return {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toText(credential.response.clientDataJSON),
      attestationObject: toText(credential.response.attestationObject),
      transports: credential.response.getTransports ? credential.response.getTransports() : [],
    },
  };
};
window.getCredential = async (options) => {
  const publicKey = { ...options, challenge: toBuffer(options.challenge), allowCredentials: descriptors(options.allowCredentials) };
  const credential = await navigator.credentials.get({ publicKey });
  return {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toText(credential.response.clientDataJSON),
      authenticatorData: toText(credential.response.authenticatorData),
      signature: toText(credential.response.signature),
      userHandle: credential.response.userHandle ? toText(credential.response.userHandle) : undefined,
    },
  };
};
`;

/** A page on a real socket at http://localhost:<port> (a secure context, as WebAuthn needs) with the ceremony script. */
export async function startCeremonyPage(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(`<!DOCTYPE html><html><head><title>webauthn</title></head><body><script>${PAGE_SCRIPT}</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { origin: `http://localhost:${address.port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The CDP virtual authenticator's options (WebAuthn.VirtualAuthenticatorOptions). */
export interface VirtualAuthenticator {
  transport: 'usb' | 'internal';
  hasResidentKey: boolean;
  hasUserVerification: boolean;
  isUserVerified: boolean;
}

export const SECURITY_KEY: VirtualAuthenticator = { transport: 'usb', hasResidentKey: false, hasUserVerification: false, isUserVerified: false };
export const PLATFORM: VirtualAuthenticator = { transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true };

/** A browser context whose page has one virtual authenticator attached, as a user with that device. */
export interface Device {
  page: Page;
  /** The credentials the authenticator holds, with their signature counters. */
  credentials(): Promise<{ credentialId: string; signCount: number; isResidentCredential: boolean }[]>;
  create(options: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON>;
  get(options: PublicKeyCredentialRequestOptionsJSON): Promise<AuthenticationResponseJSON>;
  close(): Promise<void>;
}

export async function openDevice(browser: Browser, origin: string, authenticator: VirtualAuthenticator): Promise<Device> {
  const context: BrowserContext = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', automaticPresenceSimulation: true, ...authenticator },
  });
  return {
    page,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    create: (options) => page.evaluate((o) => (window as unknown as { createCredential(o: unknown): Promise<RegistrationResponseJSON> }).createCredential(o), options),
    get: (options) => page.evaluate((o) => (window as unknown as { getCredential(o: unknown): Promise<AuthenticationResponseJSON> }).getCredential(o), options),
    close: () => context.close(),
  };
}

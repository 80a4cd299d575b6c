import { ManagementClient, type ManagementError } from 'auth0';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { localTls } from './certificates.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer, type TestServerOptions } from './harness.js';

/** A listening HTTPS test server and the official Management SDK (npm `auth0`) signed in as the admin client. */
export interface SdkServer {
  server: TestServer;
  /** The SDK with the admin client's credentials (it fetches its own token from https://{domain}/oauth/token). */
  management: ManagementClient;
  /** host:port, as the SDK takes it: it always builds https://{domain}/api/v2. */
  domain: string;
  /** Restores the previous global dispatcher, then closes the server. */
  close(): Promise<void>;
}

/**
 * Starts a test server over real HTTPS for the official SDK, which only speaks https and fetches through
 * undici's global dispatcher: that dispatcher is swapped for one trusting a fresh self-signed certificate
 * until `close()`, so suites must close it in afterAll.
 */
export async function startServerForSdk(options: Omit<TestServerOptions, 'listen' | 'https'>): Promise<SdkServer> {
  const tls = localTls();
  const previousDispatcher = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca: tls.cert } }));
  let server: TestServer;
  try {
    server = await startTestServer({ ...options, listen: true, https: tls });
  } catch (error) {
    setGlobalDispatcher(previousDispatcher);
    throw error;
  }
  const domain = new URL(server.url).host;
  return {
    server,
    management: new ManagementClient({ domain, clientId: ADMIN_CLIENT_ID, clientSecret: ADMIN_CLIENT_SECRET }),
    domain,
    close: async () => {
      setGlobalDispatcher(previousDispatcher);
      await server.close();
    },
  };
}

/** The error an SDK call fails with, with the body the SDK parsed; throws if the call succeeds. */
export async function rejection(promise: Promise<unknown>): Promise<ManagementError & { body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as ManagementError & { body: Record<string, unknown> };
  }
  throw new Error('expected the SDK call to fail');
}

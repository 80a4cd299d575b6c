/** What the server put in the page's meta tag: where to sign in, as which client, for which API and scopes. */
export interface ConsoleSettings {
  issuer: string;
  clientId: string;
  audience: string;
  scopes: string[];
  /** The role that makes the console's administrators (marked in the Roles area, and warned about before it goes). */
  administratorRole: string;
}

export function readSettings(): ConsoleSettings {
  const content = document.querySelector('meta[name="latchkey-console"]')?.getAttribute('content');
  if (!content) throw new Error('The console page has no settings: serve it from Latchkey at /admin/.');
  return JSON.parse(content) as ConsoleSettings;
}

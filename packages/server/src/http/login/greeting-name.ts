import type { Registry } from '../../registry.js';

/** The name a screen greets a signed-in user by (the logout and consent questions): their name, user name or e-mail. */
export async function greetingName(registry: Registry, userId: string): Promise<string | undefined> {
  const user = (await registry.storage.users.get(registry.tenantId, userId))?.data;
  return user?.name ?? user?.username ?? user?.email;
}

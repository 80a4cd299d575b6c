import type { Registry } from '../../registry.js';

/** The name a screen greets a signed-in user by (the logout and consent questions): their name, user name or e-mail. */
export async function greetingName(registry: Registry, userId: string): Promise<string | undefined> {
  const user = (await registry.storage.users.get(registry.tenantId, userId))?.data;
  return user?.name ?? user?.username ?? user?.email;
}

/** The signed-in user as the screens after login show them (`user` of the screen context). */
export async function signedInUser(registry: Registry, userId: string): Promise<{ id: string; email?: string; username?: string; picture?: string }> {
  const user = (await registry.storage.users.get(registry.tenantId, userId))?.data;
  return {
    id: userId,
    ...(user?.email !== undefined ? { email: user.email } : {}),
    ...(user?.username !== undefined ? { username: user.username } : {}),
    ...(user?.picture !== undefined ? { picture: user.picture } : {}),
  };
}

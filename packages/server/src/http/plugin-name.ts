/**
 * Names a plugin for Fastify before it is registered. Without a name Fastify looks for the plugin among the exports
 * of every loaded module (the whole `require.cache`), once per registration: with a few thousand modules loaded
 * that was a third of the CPU of building an app. The name is the function's own, which is also what Fastify would
 * have fallen back to.
 */
export function named<Plugin extends (...args: never[]) => unknown>(plugin: Plugin): Plugin {
  const key = Symbol.for('fastify.display-name');
  const tagged = plugin as unknown as Record<symbol, string | undefined>;
  tagged[key] ??= plugin.name || 'anonymous plugin';
  return plugin;
}

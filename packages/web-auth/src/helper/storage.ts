/** A small key-value store with expiry: the library keeps transactions and cross-origin verifiers in one. */
export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string, ttlSeconds: number): void;
  remove(key: string): void;
}

/** Cookies of the application's origin. `SameSite=None; Secure` on HTTPS, so that a frame of ours can read them. */
export function cookieStore(doc: Document = document): KeyValueStore {
  const secure = doc.location?.protocol === 'https:';
  const attributes = secure ? '; path=/; SameSite=None; Secure' : '; path=/; SameSite=Lax';
  return {
    get(key) {
      const name = `${encodeURIComponent(key)}=`;
      const found = doc.cookie.split('; ').find((cookie) => cookie.startsWith(name));
      return found === undefined ? null : decodeURIComponent(found.slice(name.length));
    },
    set(key, value, ttlSeconds) {
      doc.cookie = `${encodeURIComponent(key)}=${encodeURIComponent(value)}; max-age=${ttlSeconds}${attributes}`;
    },
    remove(key) {
      doc.cookie = `${encodeURIComponent(key)}=; max-age=0${attributes}`;
    },
  };
}

/** Web Storage with expiry (each value is kept with its deadline). */
export function webStorageStore(storage: Storage, now: () => number = Date.now): KeyValueStore {
  return {
    get(key) {
      const raw = storage.getItem(key);
      if (raw === null) return null;
      try {
        const entry = JSON.parse(raw) as { value: string; expires: number };
        if (entry.expires > now()) return entry.value;
      } catch {
        // Not ours, or damaged: treated as absent.
      }
      storage.removeItem(key);
      return null;
    },
    set(key, value, ttlSeconds) {
      storage.setItem(key, JSON.stringify({ value, expires: now() + ttlSeconds * 1000 }));
    },
    remove(key) {
      storage.removeItem(key);
    },
  };
}

/** For pages where neither Web Storage nor cookies work, and for tests. */
export function memoryStore(now: () => number = Date.now): KeyValueStore {
  const entries = new Map<string, { value: string; expires: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry || entry.expires <= now()) return null;
      return entry.value;
    },
    set(key, value, ttlSeconds) {
      entries.set(key, { value, expires: now() + ttlSeconds * 1000 });
    },
    remove(key) {
      entries.delete(key);
    },
  };
}

/** localStorage when the page may use it (it can be blocked), else cookies, else memory. */
export function browserStore(): KeyValueStore {
  try {
    const probe = '__latchkey_probe__';
    localStorage.setItem(probe, '1');
    localStorage.removeItem(probe);
    return webStorageStore(localStorage);
  } catch {
    return typeof document !== 'undefined' ? cookieStore() : memoryStore();
  }
}

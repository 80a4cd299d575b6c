import { describe, expect, it } from 'vitest';
import { verifiedTokenCache } from '../src/oauth/verified-tokens.js';

describe('verified access-token cache', () => {
  it('answers until the token expires or the maximum age passes, whichever is first', () => {
    let now = 1000;
    const cache = verifiedTokenCache<{ exp?: number; sub: string }>({ maxAgeSeconds: 30, nowSeconds: () => now });
    cache.set('short', { exp: 1010, sub: 'a' });
    cache.set('long', { exp: 9999, sub: 'b' });
    cache.set('no-exp', { sub: 'c' });
    expect(cache.get('short')?.sub).toBe('a');
    expect(cache.get('no-exp')).toBeUndefined();
    now = 1010;
    expect(cache.get('short')).toBeUndefined();
    expect(cache.get('long')?.sub).toBe('b');
    now = 1030;
    expect(cache.get('long')).toBeUndefined();
  });

  it('keeps at most the limit, dropping the oldest', () => {
    const cache = verifiedTokenCache<{ exp: number }>({ limit: 2, nowSeconds: () => 0 });
    cache.set('1', { exp: 10 });
    cache.set('2', { exp: 10 });
    cache.set('3', { exp: 10 });
    expect(cache.get('1')).toBeUndefined();
    expect(cache.get('2')).toBeDefined();
    expect(cache.get('3')).toBeDefined();
  });
});

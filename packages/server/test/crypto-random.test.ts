import { describe, expect, it } from 'vitest';
import { randomId, secureRandomBytes } from '../src/crypto/random.js';

describe('secure random bytes from the pool', () => {
  it('hands out fresh bytes on every draw, across refills, as copies nobody else holds', () => {
    const seen = new Set<string>();
    // 600 draws of 32 bytes cross the 4 KiB pool several times.
    for (let i = 0; i < 600; i += 1) {
      const bytes = secureRandomBytes(32);
      expect(bytes).toHaveLength(32);
      seen.add(bytes.toString('hex'));
      bytes.fill(0xff);
    }
    expect(seen.size).toBe(600);
    // Overwriting what was handed out changed nothing that comes next.
    expect(secureRandomBytes(64).equals(Buffer.alloc(64, 0xff))).toBe(false);
    expect(secureRandomBytes(10_000)).toHaveLength(10_000);
  });

  it('spreads random identifiers evenly over the alphabet', () => {
    const counts = new Map<string, number>();
    for (const char of Array.from({ length: 2000 }, () => randomId(31)).join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 62 000 characters: 1000 expected each (σ ≈ 31); a biased or stuck source falls far outside this band.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(850);
      expect(count).toBeLessThan(1150);
    }
  });
});

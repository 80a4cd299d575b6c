import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rsaSigner, type SigningPlace } from '../src/crypto/rsa-signer.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const inputs = Array.from({ length: 12 }, (_, i) => Buffer.from(`header.payload-${i}`));

describe.each<SigningPlace>(['event-loop', 'thread-pool'])('RS256 signer on the %s', (place) => {
  it('answers each of many concurrent requests with the signature of its own input', async () => {
    const sign = rsaSigner(place);
    const signatures = await Promise.all(inputs.map((input) => sign(input, privateKey)));
    signatures.forEach((signature, i) => {
      expect(signature).toHaveLength(256);
      expect(verify('sha256', inputs[i] as Buffer, publicKey, signature)).toBe(true);
      expect(verify('sha256', inputs[(i + 1) % inputs.length] as Buffer, publicKey, signature)).toBe(false);
    });
  });

  it('rejects a request whose key cannot sign without failing the others', async () => {
    const sign = rsaSigner(place);
    const results = await Promise.allSettled([sign(inputs[0] as Buffer, privateKey), sign(inputs[1] as Buffer, publicKey), sign(inputs[2] as Buffer, privateKey)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});

describe('RS256 signer on the event loop', () => {
  it('signs the requests of one loop turn together, after the turn, not as each arrives', async () => {
    const sign = rsaSigner('event-loop');
    const done: number[] = [];
    const pending = inputs.slice(0, 4).map((input, i) => sign(input, privateKey).then(() => done.push(i)));
    // Microtasks alone (what a request's own awaits run on) do not reach the signatures.
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
    expect(done).toEqual([]);
    await Promise.all(pending);
    expect(done).toEqual([0, 1, 2, 3]);
    // A later turn starts a new batch.
    await expect(sign(inputs[5] as Buffer, privateKey)).resolves.toHaveLength(256);
  });
});

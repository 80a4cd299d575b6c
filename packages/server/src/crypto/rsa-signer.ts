import { sign, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';

/**
 * RSASSA-PKCS1-v1_5 with SHA-256 (RS256), the one place every JWT signature of the server is made: node:crypto on
 * Buffers the callers assemble, 5-7 % more tokens per second than jose's SignJWT (bench/).
 *
 * With more than one CPU the callback form signs on a libuv pool thread, so the event loop keeps serving while
 * other cores sign.
 *
 * With one CPU there is no other core to sign on, and handing off to the pool only adds work, so signatures are
 * made on the event loop. They are not made one per request as each request reaches its signature, though: a
 * 2048-bit signature takes about 250 µs of big-number arithmetic, and the JavaScript of the next request then
 * runs with cold caches and branch predictors and costs about twice what it costs back to back (bench/breakdown:
 * roughly 160 µs instead of 90 µs per client-credentials token). So requests queue their signature, and one
 * setImmediate callback, after the poll phase has run every request that arrived, signs the whole queue back to
 * back; the requests' remaining work (serialising and writing the answers) then also runs back to back. No
 * request waits for more than the signatures queued ahead of it in the same loop turn.
 */
export type SigningPlace = 'event-loop' | 'thread-pool';

interface QueuedSignature {
  input: Buffer;
  key: KeyObject;
  resolve: (signature: Buffer) => void;
  reject: (error: unknown) => void;
}

/** A signer that signs in `place`; the server uses one per process (`signRs256`), tests make both kinds. */
export function rsaSigner(place: SigningPlace): (input: Buffer, key: KeyObject) => Promise<Buffer> {
  if (place === 'thread-pool') {
    return (input, key) =>
      new Promise((resolve, reject) => sign('sha256', input, key, (error, signature) => (error ? reject(error) : resolve(signature))));
  }
  let queue: QueuedSignature[] = [];
  const signQueue = () => {
    const batch = queue;
    queue = [];
    for (const job of batch) {
      try {
        job.resolve(sign('sha256', job.input, job.key));
      } catch (error) {
        job.reject(error);
      }
    }
  };
  return (input, key) =>
    new Promise((resolve, reject) => {
      if (queue.push({ input, key, resolve, reject }) === 1) setImmediate(signQueue);
    });
}

export const signRs256 = rsaSigner(availableParallelism() === 1 ? 'event-loop' : 'thread-pool');

import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { concurrencyLimit } from '../src/services/concurrency-limit.js';
import { hashPassword, passwordHashingLoad, verifyPassword } from '../src/services/passwords.js';

/** A task the test settles by hand, recording when it started. */
function manualTask(started: number[], id: number) {
  let settle!: (ok: boolean) => void;
  const task = () =>
    new Promise<number>((resolve, reject) => {
      started.push(id);
      settle = (ok) => (ok ? resolve(id) : reject(new Error(`task ${id} failed`)));
    });
  return { task, settle: (ok: boolean) => settle(ok) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('concurrencyLimit', () => {
  it('runs at most its slots at once, the rest in arrival order, and a failure frees its slot', async () => {
    const limit = concurrencyLimit(2);
    const started: number[] = [];
    const tasks = Array.from({ length: 5 }, (_, id) => manualTask(started, id));
    const results = tasks.map(({ task }) => limit.run(task).then((value) => ({ value }), (error: Error) => ({ error: error.message })));
    await turn();
    expect(started).toEqual([0, 1]);
    expect(limit.load).toEqual({ running: 2, waiting: 3 });

    tasks[1]?.settle(false);
    await turn();
    expect(started).toEqual([0, 1, 2]);
    // A task arriving now queues behind the ones already waiting.
    const late = manualTask(started, 5);
    const lateResult = limit.run(late.task);
    tasks[0]?.settle(true);
    await turn();
    expect(started).toEqual([0, 1, 2, 3]);
    expect(limit.load).toEqual({ running: 2, waiting: 2 });

    for (const id of [2, 3, 4]) {
      tasks[id]?.settle(true);
      await turn();
    }
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    late.settle(true);
    await expect(lateResult).resolves.toBe(5);
    expect(await Promise.all(results)).toEqual([{ value: 0 }, { error: 'task 1 failed' }, { value: 2 }, { value: 3 }, { value: 4 }]);
    expect(limit.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a slot count that is not a positive integer', () => {
    expect(() => concurrencyLimit(0)).toThrow(RangeError);
    expect(() => concurrencyLimit(1.5)).toThrow(RangeError);
  });
});

describe('password hashing', () => {
  it('runs one argon2id hash per available CPU and queues the rest; every verification still answers', async () => {
    const stored = await hashPassword('correct horse battery staple');
    const cpus = availableParallelism();
    const count = cpus + 3;
    const checks = Array.from({ length: count }, (_, i) => verifyPassword(i % 2 === 0 ? 'correct horse battery staple' : 'wrong', stored));
    expect(passwordHashingLoad()).toEqual({ running: cpus, waiting: 3 });
    expect(await Promise.all(checks)).toEqual(Array.from({ length: count }, (_, i) => i % 2 === 0));
    expect(passwordHashingLoad()).toEqual({ running: 0, waiting: 0 });
  });
});

/**
 * Issue-4 figures for `npm run bench`: failed-login handling and the breached-password lookup.
 *  - A legitimate user logs in (password-realm grant, argon2id) one request at a time, first alone, then while
 *    an attacker on another source address (127.0.0.2) hammers one victim account with wrong passwords from
 *    `BENCH_CONNECTIONS` concurrent loops. Brute-force protection blocks the attacker's account/address pair after
 *    ten failures and suspicious-IP throttling throttles the address, so almost all of the attack is answered
 *    with a cheap 429 and the legitimate user's p99 should stay within 2x of its unloaded value.
 *  - The breached-password table: build time, memory, and lookups per second (SHA-1 + binary search).
 */
import { Agent } from 'undici';
import { breachedPasswords, LOCAL_BREACHED_COUNT, localBreachedTable } from '../packages/server/src/services/breached-passwords.js';
import { call } from './measure.js';
import { USER_PASSWORD, type UserFlowSetup } from './user-flows.js';

export interface AttackFigures {
  legitimateAlone: { logins: number; p99: number };
  legitimateUnderAttack: { logins: number; p99: number };
  attacker: { rps: number; statuses: Record<string, number> };
  p99Ratio: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Sequential password logins for `seconds`; every answer must be 200. */
async function legitimateLogins(tokenUrl: string, setup: UserFlowSetup, seconds: number) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    await call(tokenUrl, {
      method: 'POST',
      form: {
        grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
        client_id: setup.clientId,
        client_secret: setup.clientSecret,
        username: setup.email,
        password: USER_PASSWORD,
        realm: setup.connection,
        scope: 'openid',
      },
    });
    latencies.push(performance.now() - started);
  }
  return { logins: latencies.length / seconds, p99: Math.round(percentile(latencies, 99) * 10) / 10 };
}

export async function attackScenario(baseUrl: string, setup: UserFlowSetup, victimEmail: string, options: { seconds: number; connections: number }): Promise<AttackFigures> {
  const tokenUrl = `${baseUrl}/oauth/token`;
  await legitimateLogins(tokenUrl, setup, 1);
  const legitimateAlone = await legitimateLogins(tokenUrl, setup, options.seconds);

  const attackerAgent = new Agent({ localAddress: '127.0.0.2', connections: options.connections });
  const statuses: Record<string, number> = {};
  let attempts = 0;
  let attacking = true;
  const body = new URLSearchParams({
    grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
    client_id: setup.clientId,
    client_secret: setup.clientSecret,
    username: victimEmail,
    password: 'wrong-guess',
    realm: setup.connection,
  }).toString();
  const attacker = Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (attacking) {
        const response = await fetch(tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
          // @ts-expect-error undici's dispatcher option is not in the DOM fetch types
          dispatcher: attackerAgent,
        });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        attempts += 1;
        if (response.status !== 403 && response.status !== 429) throw new Error(`attacker got ${response.status}`);
      }
    }),
  );
  const started = performance.now();
  const legitimateUnderAttack = await legitimateLogins(tokenUrl, setup, options.seconds);
  attacking = false;
  await attacker;
  const elapsed = (performance.now() - started) / 1000;
  await attackerAgent.close();
  if (!statuses['429']) throw new Error('the attack was never blocked or throttled');
  return {
    legitimateAlone,
    legitimateUnderAttack,
    attacker: { rps: attempts / elapsed, statuses },
    p99Ratio: legitimateUnderAttack.p99 / Math.max(0.1, legitimateAlone.p99),
  };
}

export interface BreachedFigures {
  entries: number;
  buildMs: number;
  tableBytes: number;
  lookupsPerSecond: number;
}

/** The local breached-password table in this process: build once, then look up distinct passwords. */
export async function breachedLookupCost(seconds: number): Promise<BreachedFigures> {
  const started = performance.now();
  const table = await localBreachedTable();
  const buildMs = performance.now() - started;
  const detector = breachedPasswords();
  if (!(await detector.isBreached('qwerty123'))) throw new Error('the breached table does not know qwerty123');
  let lookups = 0;
  const until = performance.now() + seconds * 1000;
  const begin = performance.now();
  while (performance.now() < until) {
    for (let i = 0; i < 1000; i += 1) await detector.isBreached(`candidate-${lookups + i}`);
    lookups += 1000;
  }
  return { entries: LOCAL_BREACHED_COUNT, buildMs: Math.round(buildMs), tableBytes: table.byteLength, lookupsPerSecond: lookups / ((performance.now() - begin) / 1000) };
}

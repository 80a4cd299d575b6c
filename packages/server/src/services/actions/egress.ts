import { BlockList, isIP } from 'node:net';
import type { ActionsEgress } from '../../config/actions-egress.js';

/** What an outbound address is, for LATCHKEY_ACTIONS_EGRESS. */
export type AddressClass = 'public' | 'loopback' | 'restricted';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Special-purpose ranges (IANA's IPv4 and IPv6 special-purpose registries) that are not reachable on the public
 * internet or reach something other than the internet: the host itself, the operator's networks, cloud metadata
 * (169.254.169.254), translation prefixes that embed such an address. BlockList matches IPv4 rules against
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) too.
 */
const RESTRICTED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  RESTRICTED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  RESTRICTED.addSubnet(network, prefix, 'ipv6');
}

/** IPv6 global unicast; anything else of IPv6 (other than IPv4-mapped) is not assigned for the internet. */
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'restricted';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return 'loopback';
  if (RESTRICTED.check(address, type)) return 'restricted';
  if (type === 'ipv6' && !IPV4_MAPPED.check(address, type) && !GLOBAL_UNICAST_V6.check(address, type)) return 'restricted';
  return 'public';
}

/** Why `address` may not be reached under `egress`, or undefined when it may. */
export function egressRefusal(address: string, egress: ActionsEgress): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'public' || (kind === 'loopback' && egress.allowLoopback)) return undefined;
  const what = kind === 'loopback' ? 'a loopback address' : 'not a public address';
  const allowed = egress.allowLoopback ? 'public and loopback addresses' : 'public addresses only';
  return `${address} is ${what}, and LATCHKEY_ACTIONS_EGRESS allows ${allowed}`;
}

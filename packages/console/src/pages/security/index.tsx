import type { PageProps } from '../../app.js';
import { AreaNav } from '../../fields.js';
import { AttackProtection } from './attack-protection.js';
import { MultiFactor } from './multi-factor.js';
import { UserBlocks } from './user-blocks.js';

const PAGES = [
  { path: '/admin/security/attack-protection', label: 'Attack protection' },
  { path: '/admin/security/mfa', label: 'Multi-factor authentication' },
  { path: '/admin/security/user-blocks', label: 'User blocks' },
] as const;

/** The Security area: attack protection, multi-factor authentication and brute-force blocks. */
export function Security({ path, ...props }: PageProps & { path: string }) {
  const current = PAGES.find((page) => path.startsWith(page.path)) ?? PAGES[0];
  return (
    <>
      <AreaNav label="Security pages" pages={PAGES} current={current.path} />
      {current === PAGES[1] ? <MultiFactor {...props} /> : current === PAGES[2] ? <UserBlocks {...props} /> : <AttackProtection {...props} />}
    </>
  );
}

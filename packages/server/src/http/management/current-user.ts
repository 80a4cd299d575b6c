import type { FastifyRequest } from 'fastify';
import { ManagementError } from './errors.js';

/**
 * The rules of a current-user token (the browser library's management calls): without the administrator scope
 * the route asked for, the token acts only on its own subject, and a metadata change needs the scope of each
 * kind of change it makes (adding, changing or removing a key).
 */
export function requireSubjectUnless(request: FastifyRequest, adminScope: string, userId: string): 'admin' | 'self' {
  const auth = request.auth;
  if (auth?.scopes.has(adminScope)) return 'admin';
  if (auth?.sub !== userId) throw new ManagementError(403, 'User to be acted on does not match subject in bearer token.', 'subject_mismatch');
  return 'self';
}

export function checkCurrentUserMetadataPatch(
  request: FastifyRequest,
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
) {
  const scopes = request.auth?.scopes ?? new Set<string>();
  const fields = Object.keys(patch);
  if (fields.some((field) => field !== 'user_metadata')) {
    throw new ManagementError(403, 'A current-user token may change only user_metadata.', 'insufficient_scope');
  }
  const metadata = patch.user_metadata as Record<string, unknown> | null | undefined;
  if (metadata === undefined) return;
  const changes =
    metadata === null || Object.keys(metadata).length === 0
      ? Object.keys(current).map(() => 'delete' as const)
      : Object.entries(metadata).map(([key, value]) => (value === null ? 'delete' : key in current ? 'update' : 'create'));
  for (const change of new Set(changes)) {
    // update covers every change, as on the platform; create and delete cover only their own kind.
    if (!scopes.has('update:current_user_metadata') && !scopes.has(`${change}:current_user_metadata`)) {
      throw new ManagementError(403, `Insufficient scope, expected any of: update:current_user_metadata,${change}:current_user_metadata`, 'insufficient_scope');
    }
  }
}

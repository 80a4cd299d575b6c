import { timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from '../../crypto/deployment-secret.js';
import type { ExportFormat } from './users-export.js';

/** How long a users export's `location` works after `GET /api/v2/jobs/{id}` handed it out. */
export const EXPORT_LINK_TTL_SECONDS = 600;

export interface ExportDownloadsDeps {
  /** The key the links are signed with (derived from the deployment secret for this purpose only). */
  key: Buffer;
  tenantId: string;
  /** The public base URL the links point at (the issuer). */
  baseUrl: string;
  now: () => Date;
}

/**
 * A finished export is downloaded without a bearer token, as from the platform's storage: its `location` is a
 * link signed with a key of the deployment, naming the tenant, the job and an expiry. Any node can check it.
 */
export function exportDownloads(deps: ExportDownloadsDeps) {
  const signature = (jobId: string, expires: number) => hmacSha256(deps.key, `${deps.tenantId}\n${jobId}\n${expires}`).toString('base64url');
  return {
    /** The file name a download is served under, e.g. `job_abc.csv.gz`. */
    fileName: (jobId: string, format: ExportFormat) => `${jobId}.${format}.gz`,

    location(jobId: string): string {
      const expires = Math.floor(deps.now().getTime() / 1000) + EXPORT_LINK_TTL_SECONDS;
      return `${deps.baseUrl}/api/v2/jobs/${jobId}/export-file?expires=${expires}&signature=${signature(jobId, expires)}`;
    },

    /** Whether a link's expiry and signature are good for the job (compared in constant time). */
    valid(jobId: string, expires: number, given: string): boolean {
      if (!Number.isSafeInteger(expires) || expires * 1000 < deps.now().getTime()) return false;
      const expected = Buffer.from(signature(jobId, expires));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type ExportDownloads = ReturnType<typeof exportDownloads>;

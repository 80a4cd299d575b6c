import type { ManagementErrorCode } from './management-error-codes.js';

/**
 * Domain failures raised by services. Each surface maps the kind to its own error shape (the Management API:
 * status and errorCode), so services stay free of HTTP. `errorCode`, when given, is one of the Management API's
 * catalogued codes (management-error-codes.ts); without it the surface picks the kind's default.
 */
export type ServiceErrorKind = 'invalid' | 'not_found' | 'conflict' | 'payment_required' | 'forbidden';

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly errorCode?: ManagementErrorCode,
  ) {
    super(message);
  }
}

/**
 * Domain failures raised by services. Each surface maps the kind to its own error shape (the Management API:
 * status and errorCode), so services stay free of HTTP.
 */
export type ServiceErrorKind = 'invalid' | 'not_found' | 'conflict' | 'payment_required' | 'forbidden';

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly errorCode?: string,
  ) {
    super(message);
  }
}

import { STATUS_CODES } from 'node:http';
import type { ManagementErrorCode } from '../../services/management-error-codes.js';

/**
 * The Management API's one error family: `{statusCode, error, message, errorCode}`. The errorCode is a key of
 * the catalogue (services/management-error-codes.ts), so an uncatalogued code does not compile.
 */
export class ManagementError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errorCode: ManagementErrorCode,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  toBody() {
    return { statusCode: this.statusCode, error: STATUS_CODES[this.statusCode] ?? 'Error', message: this.message, errorCode: this.errorCode };
  }
}

export const unauthorized = (message: string) =>
  new ManagementError(401, message, 'invalid_token', { 'www-authenticate': 'Bearer realm="latchkey"' });

export const notFound = (message: string, errorCode: ManagementErrorCode = 'inexistent_resource') => new ManagementError(404, message, errorCode);

export const conflict = (message: string, errorCode: ManagementErrorCode = 'conflict') => new ManagementError(409, message, errorCode);

export const badRequest = (message: string, errorCode: ManagementErrorCode = 'invalid_body') => new ManagementError(400, message, errorCode);

import { STATUS_CODES } from 'node:http';

/** The Management API's one error family: `{statusCode, error, message, errorCode}`. */
export class ManagementError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errorCode: string,
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

export const notFound = (message: string, errorCode = 'inexistent_resource') => new ManagementError(404, message, errorCode);

export const conflict = (message: string, errorCode = 'conflict') => new ManagementError(409, message, errorCode);

export const badRequest = (message: string, errorCode = 'invalid_body') => new ManagementError(400, message, errorCode);

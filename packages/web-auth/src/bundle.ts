// The script bundle's global: `latchkey.WebAuth`, `latchkey.Management`, `latchkey.Authentication`, `latchkey.version`.
export { Authentication, Management, version, WebAuth } from './index.js';

import { createTransport } from 'nodemailer';
import type { Delivery, EmailMessage, SmsMessage } from './channels.js';
import type { LocalOutbox } from './outbox.js';

export interface DeliverySettings {
  smtpUrl: string | undefined;
  mailFrom: string;
  smsUrl: string | undefined;
  smsToken: string | undefined;
  smsFrom: string;
}

/** How long an SMS provider may take before the send counts as failed. */
const SMS_TIMEOUT_MS = 10_000;

/** Where a URL points, without its credentials (for messages about the configuration). */
const withoutCredentials = (raw: string) => {
  const url = new URL(raw);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
};

/**
 * E-mail through SMTP (nodemailer) when `SMTP_URL` is set, text messages through the HTTP provider when
 * `LATCHKEY_SMS_URL` is set; whatever is not configured goes to the local outbox.
 */
export function createDelivery(settings: DeliverySettings, outbox: LocalOutbox): Delivery {
  const mailer = settings.smtpUrl ? createTransport(settings.smtpUrl) : undefined;

  async function email(message: EmailMessage) {
    if (!mailer) return outbox.email(message);
    await mailer.sendMail({ from: settings.mailFrom, to: message.to, subject: message.subject, text: message.text, html: message.html });
  }

  async function sms(message: SmsMessage) {
    if (!settings.smsUrl) return outbox.sms(message);
    const response = await fetch(settings.smsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.smsToken ? { authorization: `Bearer ${settings.smsToken}` } : {}) },
      body: JSON.stringify({ to: message.to, body: message.body, from: settings.smsFrom }),
      signal: AbortSignal.timeout(SMS_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`the SMS provider answered ${response.status}`);
  }

  return {
    email,
    sms,
    description: {
      email: settings.smtpUrl ? `SMTP ${withoutCredentials(settings.smtpUrl)}` : `local outbox ${outbox.file}`,
      sms: settings.smsUrl ? `HTTP ${withoutCredentials(settings.smsUrl)}` : `local outbox ${outbox.file}`,
    },
    async close() {
      mailer?.close();
    },
  };
}

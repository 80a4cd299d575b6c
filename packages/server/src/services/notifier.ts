import type { Logger } from 'pino';
import type { Delivery } from './delivery/channels.js';
import { templates } from './delivery/templates.js';

/** Messages to users, through the configured delivery (SMTP, the SMS provider, or the local outbox). */
export interface Notifier {
  passwordReset(message: { email: string; url: string; clientName: string }): Promise<void>;
  verifyEmail(message: { email: string; url: string; clientName: string }): Promise<void>;
  verificationCode(message: { email?: string | undefined; phoneNumber?: string | undefined; code: string; clientName: string; minutes: number }): Promise<void>;
  magicLink(message: { email: string; url: string; clientName: string; minutes: number }): Promise<void>;
  accountBlocked(message: { email: string; url: string; ip: string }): Promise<void>;
  passwordLeaked(message: { email: string; url: string; clientName: string }): Promise<void>;
  organizationInvitation(message: { email: string; url: string; clientName: string; inviter: string; organization: string }): Promise<void>;
}

export function deliveryNotifier(delivery: Delivery, log: Logger): Notifier {
  return {
    async passwordReset({ email, url, clientName }) {
      // The caller answers alike whether or not the address has an account, so a failed send is only logged
      // (without the link, which is a secret).
      try {
        await delivery.email(templates.passwordReset(email, { url, application: clientName || 'your application' }));
      } catch (error) {
        log.error({ err: error, kind: 'password_reset' }, 'could not deliver an e-mail');
      }
    },
    async verifyEmail({ email, url, clientName }) {
      await delivery.email(templates.verifyEmail(email, { url, application: clientName || 'your application' }));
    },
    async verificationCode({ email, phoneNumber, code, clientName, minutes }) {
      const application = clientName || 'your application';
      if (phoneNumber) await delivery.sms({ to: phoneNumber, body: templates.smsCode({ code, application, minutes }), code });
      else if (email) await delivery.email(templates.verificationCode(email, { code, application, minutes }));
      else throw new Error('a verification code needs an e-mail address or a phone number');
    },
    async magicLink({ email, url, clientName, minutes }) {
      await delivery.email(templates.magicLink(email, { url, application: clientName || 'your application', minutes }));
    },
    async passwordLeaked({ email, url, clientName }) {
      try {
        await delivery.email(templates.passwordLeaked(email, { url, application: clientName || 'your application' }));
      } catch (error) {
        log.error({ err: error, kind: 'password_leaked' }, 'could not deliver an e-mail');
      }
    },
    async organizationInvitation({ email, url, clientName, inviter, organization }) {
      await delivery.email(templates.organizationInvitation(email, { url, application: clientName || 'your application', inviter, organization }));
    },
    async accountBlocked({ email, url, ip }) {
      try {
        await delivery.email(templates.accountBlocked(email, { url, ip }));
      } catch (error) {
        log.error({ err: error, kind: 'account_blocked' }, 'could not deliver an e-mail');
      }
    },
  };
}

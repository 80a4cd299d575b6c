import type { Logger } from 'pino';

/** Messages to users. E-mail and SMS delivery (nodemailer, providers) plug in here. */
export interface Notifier {
  passwordReset(message: { email: string; url: string; clientName: string }): Promise<void>;
}

/**
 * Until a delivery channel is configured, a request is only noted in the log, without the link: the link is a
 * secret that lets its holder set the password.
 */
export function loggingNotifier(log: Logger): Notifier {
  return {
    async passwordReset({ clientName }) {
      log.warn({ clientName }, 'password reset requested, but no e-mail delivery is configured: no message was sent');
    },
  };
}

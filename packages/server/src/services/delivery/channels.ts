/** What leaves the service for a person: an e-mail or a text message. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface SmsMessage {
  to: string;
  body: string;
  /** The one-time code the text carries, for a send-phone-message Action (`event.message_options.code`). */
  code?: string;
}

/** The configured ways out; either may be the local outbox. */
export interface Delivery {
  email(message: EmailMessage): Promise<void>;
  sms(message: SmsMessage): Promise<void>;
  /** For the start-up message: where e-mails and texts go. */
  readonly description: { email: string; sms: string };
  close(): Promise<void>;
}

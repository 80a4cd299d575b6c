import type { Delivery, SmsMessage } from '../delivery/channels.js';
import type { EventRecorder } from '../events/recorder.js';
import { actionLogDetails, failureDescription, type TriggerRunner } from './trigger-runner.js';

export interface PhoneMessageDeps {
  runner: TriggerRunner;
  tenantId: string;
  events: Pick<EventRecorder, 'record'>;
}

/**
 * The send-phone-message trigger: while an action is bound to it, text messages go through the tenant's code (its
 * own SMS provider) instead of LATCHKEY_SMS_URL or the local outbox. A failed action fails the sending, as a
 * failed SMS gateway would, and is logged with its console output.
 */
export function withPhoneMessageActions(delivery: Delivery, deps: PhoneMessageDeps): Delivery {
  async function sms(message: SmsMessage): Promise<void> {
    if (!(await deps.runner.any('send-phone-message'))) return delivery.sms(message);
    const event = {
      message_options: {
        action: 'second-factor-authentication',
        ...(message.code !== undefined ? { code: message.code } : {}),
        language: 'en',
        message_type: 'sms',
        recipient: message.to,
        text: message.body,
      },
      request: {},
      tenant: { id: deps.tenantId },
    };
    const run = await deps.runner.run('send-phone-message', 'onExecuteSendPhoneMessage', event, () => 'next');
    if (run.failure) {
      const description = failureDescription(run.failure);
      deps.events.record({ type: 'fn', description, details: actionLogDetails(run) });
      throw new Error(description);
    }
  }
  return { email: (message) => delivery.email(message), sms, description: delivery.description, close: () => delivery.close() };
}

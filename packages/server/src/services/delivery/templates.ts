import type { EmailMessage } from './channels.js';

import { html } from '../../text/html.js';

/** One e-mail layout: a heading, paragraphs, and optionally one button-like link. Everything is escaped. */
function email(to: string, subject: string, paragraphs: string[], link?: { url: string; label: string }): EmailMessage {
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : [])].join('\n\n');
  const body = html`${[
    html`<!DOCTYPE html><html><body style="font-family:sans-serif"><h1 style="font-size:20px">${subject}</h1>`,
    paragraphs.map((paragraph) => html`<p>${paragraph}</p>`),
    link && html`<p><a href="${link.url}">${link.label}</a></p><p style="color:#666;font-size:12px">${link.url}</p>`,
    html`</body></html>`,
  ]}`;
  return { to, subject, text, html: String(body) };
}

/** The message templates (English): verification code, magic link, password reset, blocked account. */
export const templates = {
  verificationCode: (to: string, input: { code: string; application: string; minutes: number }) =>
    email(to, `${input.code} is your verification code`, [
      `Your verification code for ${input.application} is ${input.code}.`,
      `It expires in ${input.minutes} minutes and works once. If you did not ask for it, ignore this message.`,
    ]),
  magicLink: (to: string, input: { url: string; application: string; minutes: number }) =>
    email(
      to,
      `Log in to ${input.application}`,
      [`Use the link below to log in to ${input.application}.`, `It expires in ${input.minutes} minutes and works once. If you did not ask for it, ignore this message.`],
      { url: input.url, label: 'Log in' },
    ),
  passwordReset: (to: string, input: { url: string; application: string }) =>
    email(
      to,
      'Reset your password',
      [`Someone asked to reset the password of your ${input.application} account.`, 'If it was you, use the link below. If not, ignore this message: your password stays as it is.'],
      { url: input.url, label: 'Reset password' },
    ),
  verifyEmail: (to: string, input: { url: string; application: string }) =>
    email(
      to,
      'Verify your e-mail address',
      [`Please confirm that this is the address of your ${input.application} account.`, 'If you did not create an account, ignore this message.'],
      { url: input.url, label: 'Verify my e-mail' },
    ),
  passwordLeaked: (to: string, input: { url: string; application: string }) =>
    email(
      to,
      'Your password was found in a data breach',
      [
        `Someone just logged in to ${input.application} with your password, and that password appears in a public list of passwords leaked from other services. The login was blocked.`,
        'Choose a new password with the link below before you log in again.',
      ],
      { url: input.url, label: 'Choose a new password' },
    ),
  organizationInvitation: (to: string, input: { url: string; application: string; inviter: string; organization: string }) =>
    email(
      to,
      `You are invited to join ${input.organization}`,
      [`${input.inviter} invited you to join ${input.organization} on ${input.application}.`, 'Use the link below to accept: you can log in, or sign up with this e-mail address.'],
      { url: input.url, label: 'Accept the invitation' },
    ),
  accountBlocked: (to: string, input: { url: string; ip: string }) =>
    email(
      to,
      'Your account was blocked',
      [
        `Logins to your account from ${input.ip} were blocked after many failed attempts.`,
        'If that was you, use the link below to unblock them. If not, someone may be guessing your password: consider changing it.',
      ],
      { url: input.url, label: 'Unblock my account' },
    ),
  smsCode: (input: { code: string; application: string; minutes: number }) => `${input.code} is your ${input.application} verification code. It expires in ${input.minutes} minutes.`,
};

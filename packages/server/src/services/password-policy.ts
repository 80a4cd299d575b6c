/** The platform's "good" policy: at least 8 characters from at least three of lower, upper, digits and others. */
export function passwordAcceptable(password: string): boolean {
  if (password.length < 8 || password.length > 128) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((pattern) => pattern.test(password)).length;
  return classes >= 3;
}

/** A plausible e-mail address (one @, something on each side, a dot in the domain); deliverability is not checked. */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

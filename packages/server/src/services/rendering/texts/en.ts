/**
 * English texts of the hosted pages: the reference language. The keys are the platform's custom-text keys (UI keys
 * in camelCase, error keys in kebab-case, named after the error codes), so a tenant's overrides and a bundle
 * reading `screen.texts` find them; the wording is Latchkey's own. `${name}` marks a value the page fills in.
 *
 * `shared` holds groups of keys several screens carry with the same meaning, worded once; `screens` holds each
 * screen's own keys. index.ts says which groups each screen takes. Keys the platform does not name are marked
 * "Latchkey key".
 */
export const en = {
  shared: {
    logo: {
      logoAltText: '${companyName}',
    },
    /** The identifier fields of the login screens. */
    loginIdentifiers: {
      usernamePlaceholder: 'Username or e-mail address',
      emailPlaceholder: 'E-mail address',
    },
    /** Labels of an identifier field that takes several kinds of identifier. */
    identifierVariants: {
      phonePlaceholder: 'Phone number',
      phoneOrUsernameOrEmailPlaceholder: 'Phone number, username or e-mail address',
      phoneOrEmailPlaceholder: 'Phone number or e-mail address',
      phoneOrUsernamePlaceholder: 'Phone number or username',
      usernameOrEmailPlaceholder: 'Username or e-mail address',
    },
    loginForm: {
      separatorText: 'or',
      buttonText: 'Continue',
      federatedConnectionButtonText: 'Continue with ${connectionName}',
      signupActionText: 'New here?',
      signupActionLinkText: 'Create an account',
      passwordPlaceholder: 'Password',
      editEmailText: 'Change',
      alertListTitle: 'Messages',
    },
    invitation: {
      invitationTitle: 'You have an invitation',
      invitationDescription: '${inviterName} invited you to join ${companyName} on ${clientName}. Log in to accept.',
    },
    passwordVisibility: {
      showPasswordText: 'Show password',
      hidePasswordText: 'Hide password',
    },
    /** A new password's checklist: its heading, each rule's state for screen readers, and the rules. */
    newPassword: {
      passwordSecurityText: 'Your password must follow these rules:',
      accessibilityError: 'Not met',
      accessibilityValid: 'Met',
      // Latchkey keys: the rules of the connection's password policy (services/password-policy.ts), so the
      // standard page lists them in the page's language.
      passwordRuleLengthAtLeast: 'At least ${count} characters',
      passwordRuleShouldContain: 'Each of these kinds of characters:',
      passwordRuleContainsAtLeast: 'At least ${count} of these ${total} kinds of characters:',
      passwordRuleLowerCase: 'Lower-case letters (a-z)',
      passwordRuleUpperCase: 'Upper-case letters (A-Z)',
      passwordRuleNumbers: 'Digits (0-9)',
      passwordRuleSpecialCharacters: 'Special characters (such as !@#$%^&*)',
      passwordRuleIdenticalChars: 'No character more than ${count} times in a row (so not "${example}")',
      passwordRuleDictionary: 'Not a commonly used password',
      passwordRulePersonalInfo: 'Not based on your name, username or e-mail address',
    },
    /** Errors of the screens that check a password or an identifier at login. */
    credentialErrors: {
      'wrong-credentials': 'The username or password is not correct.',
      'wrong-email-credentials': 'The e-mail address or password is not correct.',
      'wrong-username-credentials': 'The username or password is not correct.',
      'wrong-phone-credentials': 'The phone number or password is not correct.',
      'wrong-email-username-credentials': 'The e-mail address, username or password is not correct.',
      'wrong-email-phone-username-credentials':
        'The e-mail address, phone number, username or password is not correct. Phone numbers start with their country code.',
      'wrong-email-phone-credentials': 'The e-mail address, phone number or password is not correct. Phone numbers start with their country code.',
      'wrong-phone-username-credentials': 'The phone number, username or password is not correct. Phone numbers start with their country code.',
      'invalid-code': 'This code is not valid.',
      'invalid-expired-code': 'This code is not valid or has expired.',
      'custom-script-error-code': 'An error occurred. Try again in a moment.',
      'auth0-users-validation': 'An error occurred. Try again in a moment.',
      'authentication-failure': 'We could not log you in. Please try again.',
      'invalid-connection': 'This way of logging in is not available.',
      'ip-blocked': 'Unusual login activity came from your network, so further attempts are blocked. Contact the administrator.',
      'no-db-connection': 'This way of logging in is not available.',
      'password-breached':
        'This password appeared in a data breach on another site, so we stopped this login to protect your account. Reset your password to continue.',
      'user-blocked': 'This account is blocked. Contact the administrator of the application.',
      'same-user-login': 'Too many login attempts for this account. Wait a moment, then try again.',
      'no-email': 'Enter your e-mail address.',
      'no-password': 'Enter your password.',
      'no-username': 'Enter your username.',
      // Latchkey key: brute-force protection blocked this account for the address the attempts came from.
      'too-many-attempts': 'This account is blocked after too many failed logins from your network. We sent you an e-mail that explains how to unblock it.',
    },
    signupForm: {
      separatorText: 'or',
      buttonText: 'Continue',
      federatedConnectionButtonText: 'Continue with ${connectionName}',
      loginActionText: 'Already have an account?',
      loginActionLinkText: 'Log in',
      emailPlaceholder: 'E-mail address',
      passwordPlaceholder: 'Password',
      usernamePlaceholder: 'Username',
      phonePlaceholder: 'Phone number',
      emailOptionalPlaceholder: 'E-mail address (optional)',
      usernameOptionalPlaceholder: 'Username (optional)',
      phoneOptionalPlaceholder: 'Phone number (optional)',
    },
    signupErrors: {
      // Worded so as not to confirm that an account exists for the address.
      'email-in-use': 'We could not create this account. Try another e-mail address, or log in if you already have an account.',
      'password-too-weak': 'This password is too weak.',
      'password-policy-not-conformant': 'This password does not follow the rules.',
      'password-too-common': 'This password is too common. Choose another one.',
      'password-previously-used': 'You have used this password before. Choose a new one.',
      'password-mismatch': 'The two passwords are different.',
      'invalid-username': 'A username has ${min} to ${max} characters: letters, digits or any of ${characters}.',
      'invalid-username-max-length': 'A username has at most ${max} characters.',
      'invalid-username-min-length': 'A username has at least ${min} characters.',
      'invalid-username-invalid-characters': 'This username contains characters that are not allowed.',
      'invalid-username-email-not-allowed': 'A username cannot be an e-mail address.',
      'username-taken': 'This username is not available. Choose another one.',
      'custom-script-error-code': 'An error occurred. Try again in a moment.',
      'auth0-users-validation': 'An error occurred. Try again in a moment.',
      'invalid-connection': 'This way of signing up is not available.',
      'ip-blocked': 'Unusual activity came from your network, so further attempts are blocked. Contact the administrator.',
      'ip-signup-blocked': 'Too many accounts were created from your network. Contact the administrator.',
      'no-db-connection': 'This way of signing up is not available.',
      'invalid-phone-attribute-config': 'Signing up with a phone number is not possible at the moment. Contact support.',
      'no-email': 'Enter your e-mail address.',
      'no-password': 'Enter a password.',
      'no-password-reset': 'Enter a new password.',
      'no-re-enter-password': 'Enter the new password a second time.',
      'no-username': 'Enter a username.',
      'no-identifier': 'Enter an e-mail address, phone number or username.',
      // Latchkey key (the platform's pages report it, its text table does not list it): a malformed e-mail address.
      'invalid-email-format': 'Enter a valid e-mail address.',
    },
    /** Errors of a signup screen that sets the password. */
    signupPasswordErrors: {
      'password-breached': 'This password appeared in a data breach on another site. Choose a different one to keep your new account safe.',
      'password-contains-user-information': 'The password must not contain your name, username or e-mail address.',
    },
    /** Errors of the screens reached through a ticket (a link sent by e-mail). */
    ticketErrors: {
      'auth0-users-expired-ticket': 'This link has expired.',
      'auth0-users-used-ticket': 'This link was already used.',
      'custom-script-error-code': 'An error occurred. Try again in a moment.',
      'auth0-users-validation': 'An error occurred. Try again in a moment.',
    },
    /** A one-time code sent for a passwordless login. */
    codeEntry: {
      buttonText: 'Continue',
      resendActionText: 'Send it again',
      'invalid-verification-code': 'This code is not valid.',
      'passwordless-authenticator-error': 'We could not send the code. Try again in a moment.',
      'passwordless-unknown-error': 'An error occurred. Try again in a moment.',
      // Latchkey keys on these screens (the platform names them for other screens): an empty code, a spent code,
      // and refusals of the connection or the account met when the code is checked.
      'no-code': 'Enter the code.',
      'invalid-expired-code': 'This code has expired or can no longer be used. Ask for a new code.',
      'invalid-connection': 'This way of logging in is not available.',
      'user-blocked': 'This account is blocked. Contact the administrator of the application.',
    },
  },
  screens: {
    login: {
      pageTitle: 'Log in · ${clientName}',
      title: 'Log in',
      description: 'Log in with your ${companyName} account to continue to ${clientName}.',
      forgotPasswordText: 'Forgot your password?',
      usernameOnlyPlaceholder: 'Username',
      'invalid-email-format': 'Enter a valid e-mail address.', // Latchkey key (seen on the platform's pages)
    },
    'login-id': {
      pageTitle: 'Log in · ${clientName}',
      title: 'Log in',
      description: 'Log in with your ${companyName} account to continue to ${clientName}.',
      forgotPasswordText: 'Trouble logging in?',
      usernameOnlyPlaceholder: 'Username',
      passkeyButtonText: 'Use a passkey',
      'invalid-username': 'A username has ${min} to ${max} characters: letters, digits or any of ${characters}.',
      'invalid-login-id': 'This identifier is not valid.',
      'invalid-email-phone': 'Enter a valid e-mail address or phone number. Phone numbers start with their country code.',
      'invalid-email-username': 'Enter a valid e-mail address or username.',
      'invalid-phone-username': 'Enter a valid phone number or username. Phone numbers start with their country code.',
      'invalid-email-phone-username': 'Enter a valid e-mail address, phone number or username. Phone numbers start with their country code.',
      'no-hrd-connection': 'No company directory matches this e-mail address.',
      'invalid-phone-number': 'Enter a valid phone number. Phone numbers start with their country code.',
      'conflict-password-passkey': 'Use either a password or a passkey, not both.',
      'password-not-allowed': 'Logging in with a password is not allowed.',
      'passkey-not-allowed': 'Logging in with a passkey is not allowed.',
      'no-passkey': 'Choose a passkey.',
      'passkey-authentication-failed': 'The passkey could not be verified.',
      'invalid-passkey': 'This passkey cannot be used. Try again in a moment.',
      'invalid-email-format': 'Enter a valid e-mail address.', // Latchkey key (seen on the platform's pages)
      // Latchkey key: a passwordless connection has no account for the address and signup is off.
      'signup-disabled': 'There is no account for this e-mail address or phone number, and new accounts cannot be created here.',
    },
    'login-password': {
      pageTitle: 'Enter your password · ${clientName}',
      title: 'Enter your password',
      description: 'Enter your ${companyName} password to continue to ${clientName}.',
      forgotPasswordText: 'Forgot your password?',
      editLinkScreenReadableText: 'Change the e-mail address',
      useBiometricsText: 'Use your fingerprint or face',
    },
    signup: {
      pageTitle: 'Sign up · ${clientName}',
      title: 'Create your account',
      description: 'Create a ${companyName} account to continue to ${clientName}.',
    },
    'signup-id': {
      pageTitle: 'Sign up · ${clientName}',
      title: 'Create your account',
      description: 'Create a ${companyName} account to continue to ${clientName}.',
      passwordSecurityText: 'Your password must follow these rules:',
      'no-hrd-connection': 'No company directory matches this e-mail address.',
      'invalid-phone-number': 'Enter a valid phone number.',
    },
    'signup-password': {
      pageTitle: 'Choose a password · ${clientName}',
      title: 'Create your account',
      description: 'Choose a password for your ${companyName} account to continue to ${clientName}.',
      editEmailText: 'Change',
      editPhoneText: 'Change',
      editUsernameText: 'Change',
      editLinkScreenReadableText: 'Change the e-mail address',
      backButtonText: 'Back',
      invitationDescription: '${inviterName} invited you to join ${companyName} on ${clientName}. Sign up to accept.',
      'invalid-phone-number': 'Enter a valid phone number.',
    },
    'reset-password-request': {
      pageTitle: 'Reset your password · ${clientName}',
      title: 'Forgot your password?',
      backToLoginLinkText: 'Back to ${clientName}',
      buttonText: 'Continue',
      descriptionEmail: 'Enter your e-mail address and we will send you a link to choose a new password.',
      descriptionUsername: 'Enter your username and we will send you a link to choose a new password.',
      placeholderEmail: 'E-mail address',
      placeholderUsername: 'Username',
      emailPlaceholder: 'E-mail address',
      usernamePlaceholder: 'Username',
      emailDescription: 'Enter your e-mail address and we will send you a link to choose a new password.',
      usernameDescription: 'Enter your username and we will send you a link to choose a new password.',
      phoneDescription: 'Enter your phone number and we will send you a link to choose a new password.',
      phoneOrUsernameOrEmailDescription: 'Enter your phone number, username or e-mail address and we will send you a link to choose a new password.',
      phoneOrEmailDescription: 'Enter your phone number or e-mail address and we will send you a link to choose a new password.',
      phoneOrUsernameDescription: 'Enter your phone number or username and we will send you a link to choose a new password.',
      usernameOrEmailDescription: 'Enter your username or e-mail address and we will send you a link to choose a new password.',
      'reset-password-error': 'We could not send the e-mail. Try again in a moment.',
      'too-many-email': 'Too many e-mails were sent. Wait a few minutes, then try again.',
      'too-many-requests': 'Too many requests. Wait a few minutes, then try again.',
      'no-email': 'Enter your e-mail address.',
      'no-username': 'Enter your username.',
      'no-phone_number': 'Enter your phone number.',
      'invalid-phone-format': 'This phone number is not valid.',
      'invalid-login-id': 'This identifier is not valid.',
      'invalid-email-phone': 'Enter a valid e-mail address or phone number. Phone numbers start with their country code.',
      'invalid-email-format': 'Enter a valid e-mail address.', // Latchkey key (seen on the platform's pages)
    },
    'reset-password-email': {
      pageTitle: 'Check your e-mail · ${clientName}',
      title: 'Check your e-mail',
      backButtonText: 'Back',
      emailDescription: 'If an account exists for ${email}, we have sent it a link to choose a new password.',
      resendLinkText: 'Send the e-mail again',
      // The platform fills `email` with the identifier the user typed, a username here.
      usernameDescription: 'If an account exists with the username ${email}, we have sent a link to choose a new password to its e-mail address.',
    },
    'reset-password': {
      pageTitle: 'Change your password · ${clientName}',
      title: 'Choose a new password',
      description: 'Enter a new password for your account.',
      buttonText: 'Change password',
      passwordPlaceholder: 'New password',
      reEnterpasswordPlaceholder: 'New password again',
      'no-password-reset': 'Enter a new password.',
      'no-re-enter-password': 'Enter the new password a second time.',
      'password-contains-user-information': 'The password must not contain your name, username or e-mail address.',
      'password-breached-reset': 'This password appeared in a data breach on another site. Choose a different one to keep your account safe.',
      'password-mismatch': 'The two passwords are different.',
      // Latchkey keys: the connection's policy and dictionary are checked at reset as at signup.
      'password-too-weak': 'This password is too weak.',
      'password-too-common': 'This password is too common. Choose another one.',
    },
    'reset-password-success': {
      pageTitle: 'Password changed · ${clientName}',
      eventTitle: 'Your password was changed',
      description: 'You can now log in with your new password.',
      buttonText: 'Back to ${clientName}',
    },
    'reset-password-error': {
      pageTitle: 'Password not changed · ${clientName}',
      backToLoginLinkText: 'Back to ${clientName}',
      descriptionExpired: 'This link has expired. On the login page, choose "Forgot your password?" to get a new one.',
      descriptionGeneric: 'Something went wrong. On the login page, choose "Forgot your password?" to try again.',
      descriptionUsed: 'This link was already used. On the login page, choose "Forgot your password?" to get a new one.',
      eventTitleExpired: 'Link expired',
      eventTitleGeneric: 'Something went wrong',
      eventTitleUsed: 'Link already used',
      'reset-password-error': 'We could not send the e-mail. Try again in a moment.',
    },
    'login-passwordless-email-code': {
      pageTitle: 'Enter your code · ${clientName}',
      title: 'Check your e-mail',
      description: 'We sent a code to ${email}. Enter it below.',
      placeholder: 'Code',
      resendText: 'No e-mail?',
      // Latchkey keys on this screen (the platform names them for login-password): the link back to login-id.
      editEmailText: 'Change',
      editLinkScreenReadableText: 'Change the e-mail address',
      // Latchkey key: the connection has no account for the address and signup is off.
      'signup-disabled': 'There is no account for this e-mail address, and new accounts cannot be created here.',
    },
    'login-passwordless-sms-otp': {
      pageTitle: 'Enter your code · ${clientName}',
      title: 'Check your phone',
      description: 'We sent a code by text message to:',
      editText: 'Change',
      placeholder: '6-digit code',
      resendText: 'No message?',
      // Latchkey key: the connection has no account for the address and signup is off.
      'signup-disabled': 'There is no account for this phone number, and new accounts cannot be created here.',
    },
    'email-verification-result': {
      pageTitle: 'E-mail verification · ${clientName}',
      verifiedTitle: 'E-mail address verified',
      errorTitle: 'Not verified',
      verifiedDescription: 'Thank you: your e-mail address is now verified.',
      alreadyVerifiedDescription: 'This e-mail address was verified already.',
      invalidAccountOrCodeDescription: 'This account does not exist or the verification link is not valid.',
      unknownErrorDescription: 'We could not verify your e-mail address.',
      buttonText: 'Back to ${clientName}',
    },
    logout: {
      pageTitle: 'Log out · ${clientName}',
      title: 'Log out',
      userSalute: 'Hello ${userName},',
      description: 'Do you want to log out of ${clientName}?',
      acceptButtonText: 'Log out',
      declineButtonText: 'Stay logged in',
    },
    // Latchkey keys: the platform documents no texts for the two screens after the logout question.
    'logout-complete': {
      pageTitle: 'Logged out · ${clientName}',
      title: 'You are logged out',
      description: 'You have logged out of ${clientName}.',
    },
    'logout-aborted': {
      pageTitle: 'Still logged in · ${clientName}',
      title: 'You are still logged in',
      description: 'You did not log out of ${clientName}.',
    },
    // The consent screen (prompt `consent`): the application, then the scopes it asks for, then the two answers.
    consent: {
      pageTitle: 'Authorize ${clientName}',
      title: 'Authorize ${clientName}',
      pickerTitle: 'Hi ${userName},',
      messageMultipleTenants: '${clientName} is requesting access to your account.',
      messageSingleTenant: '${clientName} is requesting access to your ${companyName} account.',
      acceptButtonText: 'Accept',
      declineButtonText: 'Decline',
    },
    // The organization prompts (prompt `organizations`: the name before login, the choice after) and the invitation.
    'organization-selection': {
      pageTitle: 'Enter your organization · ${clientName}',
      title: 'Enter your organization',
      description: 'Enter the name of your ${companyName} organization to continue.',
      placeholder: 'Organization name',
      buttonText: 'Continue',
      'invalid-organization': 'The organization you entered is invalid.',
    },
    'organization-picker': {
      pageTitle: 'Choose an organization · ${clientName}',
      title: 'Choose an organization',
      description: 'Which organization do you want to continue to ${clientName} with?',
      'no-organizations': 'You are not a member of any organization that can use ${clientName}.',
    },
    'accept-invitation': {
      pageTitle: 'Invitation · ${clientName}',
      title: 'You have been invited',
      description: '${inviterName} invited you to join ${companyName} on ${clientName}.',
      buttonText: 'Continue',
    },
    // Latchkey's own screen (prompt `common`) for a request no other screen can answer; all its keys are Latchkey keys.
    error: {
      pageTitle: 'Error · ${clientName}',
      title: 'Something went wrong',
      description: 'The application sent a request that cannot be completed.',
      errorCodeLabel: 'Error code',
      'invalid-state': 'This login took too long and has expired. Go back to the application and start again.',
    },
  },
} satisfies { shared: Record<string, Record<string, string>>; screens: Record<string, Record<string, string>> };

/** The shape every language fills: the same groups and screens with the same keys (a missing or extra one does not compile). */
export type LanguageTexts = typeof en;

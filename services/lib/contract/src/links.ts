/**
 * Addresses in the web console that other processes hand out: the gateway mails them, the admin CLI
 * prints them. One definition, so a link made anywhere opens the same page.
 */

/** The console page that sets a new password from a reset token. */
export const PASSWORD_RESET_PATH = '/reset-password';

/** `{appUrl}/reset-password?token=…`, where appUrl is the session host's public origin (APP_URL). */
export function passwordResetLink(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}${PASSWORD_RESET_PATH}?token=${encodeURIComponent(token)}`;
}

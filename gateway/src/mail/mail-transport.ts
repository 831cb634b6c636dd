/**
 * Where the gateway's mail goes: the kit's one mail transport (smtp with SMTP_URL, .eml files in
 * MAIL_DIR without it outside production, none in production), shared with the mail service.
 */
export {
  createMailTransport,
  smtpOptionsOf,
  type MailMessage,
  type MailTransport,
  type MailTransportKind,
  type MailTransportConfig as MailConfig,
} from '@tix/kit';

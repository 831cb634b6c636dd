/**
 * The eight kinds of support request of the synthetic corpus (synthetic-corpus.ts), as a support desk
 * words them: several ways a customer titles and describes the problem, and two or three ways an
 * agent answers it. `{name}` placeholders are filled per ticket from the category's own `slots`, or
 * from the shared ones (first, email, phone, order, company, browser, weekday); `{pii}` is where a
 * reply sometimes names personal data (one of `pii`, filled the same way), so that redaction shows.
 * The wording overlaps a little between categories on purpose (a reset *email*, a *notification*
 * email; *sign in* on SSO and on the phone app), as real tickets do.
 */
import type { TicketPriority } from '@tix/protos';

export interface Category {
  /** Also the category's tag: every ticket of the category carries it. */
  slug: string;
  /** Second tags a ticket sometimes carries besides the category tag, never shared with another category. */
  extraTags: readonly string[];
  /** The priority nearly every ticket of the category has (the rest is noise). */
  priority: TicketPriority;
  /** The agents who resolve it, as indexes below RESOLVER_COUNT; the first resolves most. */
  resolvers: readonly number[];
  titles: readonly string[];
  descriptions: readonly string[];
  /** The customer's follow-up comment, when there is one. */
  followUps: readonly string[];
  /** The agent's resolving reply; the first line greets the customer. */
  replies: readonly string[];
  /** What `{pii}` in a reply becomes when the reply carries personal data. */
  pii: readonly string[];
  slots: Readonly<Record<string, readonly string[]>>;
}

/** Agents who resolve tickets; a category's `resolvers` index into them. */
export const RESOLVER_COUNT = 3;

export const CATEGORIES: readonly Category[] = [
  {
    slug: 'password',
    extraTags: ['reset-email'],
    priority: 'high',
    resolvers: [0],
    titles: [
      'Password reset email never arrives',
      'Cannot reset my password',
      'Reset link says it has expired',
      'Forgot password: no email received',
      'Password reset link not working for {who}',
      'Locked out after resetting the password',
    ],
    descriptions: [
      'I clicked "Forgot password" {times} and no reset email arrived, not even in the spam folder. I am using {browser}.',
      'The password reset link opens a page saying the token has expired, although I requested it {minutes} minutes ago.',
      '{who} cannot get back into the account: the password reset email never shows up in the inbox.',
      'After requesting a new password, the link in the reset email leads to an error page. We need access today.',
      'We at {company} had several people ask for a password reset this morning and none of them received the email.',
    ],
    followUps: ['Still no reset email, I checked the spam folder again.', 'Any news? I am still locked out.'],
    replies: [
      'Hi {first},\n\nReset emails can take up to 10 minutes when our mail provider is busy. I have sent a fresh password reset link{pii}; it stays valid for 30 minutes.\n\nBest regards',
      'Hello {first},\n\nOnly the newest reset link works, and it expires after 30 minutes. Please request one more password reset and use the latest email{pii}.\n\nThanks',
      'Hi {first},\n\nYour mail server was rejecting our reset emails. Once it accepts our sender, the reset email arrives within a minute. I have sent it again{pii}.',
    ],
    pii: [' to {email}', ', and you can reach me on {phone} if it does not arrive'],
    slots: {
      who: ['a colleague', 'our new hire', 'my manager', 'two of our agents'],
      times: ['twice', 'three times', 'five times'],
      minutes: ['2', '5', '10'],
    },
  },
  {
    slug: 'billing',
    extraTags: ['invoice', 'refund'],
    priority: 'medium',
    resolvers: [1],
    titles: [
      'Charged twice this month',
      'Invoice shows the wrong amount',
      'Need a refund for a duplicate payment',
      "Where can I download last month's invoice?",
      'Credit card billed after we cancelled',
      'VAT number missing on our invoice',
    ],
    descriptions: [
      'Our credit card was charged twice for the {plan} plan this month. Please refund the duplicate payment.',
      'The latest invoice lists {seats} seats but we only pay for {fewer} seats. Can you correct the billing?',
      'We cancelled the subscription last month, yet the card was billed again on the renewal date.',
      'Finance needs the invoice PDF for {month} with our VAT number printed on it.',
    ],
    followUps: [
      'Our finance team is asking again about this charge.',
      'Could you confirm when the refund will arrive?',
    ],
    replies: [
      'Hi {first},\n\nSorry about the double charge. I have refunded the duplicate payment{pii}; it shows on your card statement within 5 to 10 business days.',
      'Hello {first},\n\nI corrected the invoice and issued a credit note{pii}. You can download both under Settings > Billing > Invoices.',
      'Hi {first},\n\nThe charge came from the renewal that ran before the cancellation. I refunded it in full{pii} and made sure no further invoices are issued.',
    ],
    pii: [' for order {order}', ' and emailed it to {email}'],
    slots: {
      plan: ['Team', 'Business', 'Enterprise'],
      seats: ['25', '40', '60'],
      fewer: ['10', '20', '30'],
      month: ['March', 'June', 'October'],
    },
  },
  {
    slug: 'export',
    extraTags: ['csv'],
    priority: 'low',
    resolvers: [2],
    titles: [
      'CSV export is empty',
      'Export to CSV mangles special characters',
      'Exported spreadsheet is missing columns',
      'Exporting all tickets never finishes',
      'Excel shows garbled text in the exported file',
    ],
    descriptions: [
      'When I export the {report} report to CSV, the file only has the header row.',
      'Names with accents such as "{accented}" come out garbled when we open the CSV export in Excel.',
      'The export stops after {rows} rows and the download never completes.',
      'Our exported spreadsheet lacks the custom field columns we need for the {report} report.',
    ],
    followUps: ['We need this export for the monthly report, any update?'],
    replies: [
      'Hi {first},\n\nThe CSV export is written in UTF-8. In Excel, use Data > From Text/CSV and pick UTF-8, and accented characters show correctly.',
      'Hello {first},\n\nLarge exports now run in the background: start the export and we email a download link when the file is ready{pii}.',
      'Hi {first},\n\nCustom field columns appear once you tick "Include custom fields" in the export dialog; the file then has one column per field.',
    ],
    pii: [' (it goes to {email})'],
    slots: {
      report: ['weekly', 'SLA', 'agent activity', 'customer'],
      accented: ['Zoë Ångström', 'José Núñez', 'Françoise Müller'],
      rows: ['10,000', '50,000', '65,536'],
    },
  },
  {
    slug: 'login',
    extraTags: ['sso'],
    priority: 'critical',
    resolvers: [0, 2],
    titles: [
      'SSO login fails with an error',
      'Cannot sign in with {idp}',
      'Single sign-on redirects back to the login page',
      'SAML error after certificate renewal',
      'Whole team unable to log in through {idp}',
    ],
    descriptions: [
      'Since this morning every sign-in through {idp} ends with "SAML response invalid". Nobody on the team can log in.',
      'After our identity provider renewed its certificate, single sign-on loops back to the login page.',
      'Users are sent to {idp} and straight back to the login screen without being signed in.',
      'We enabled SSO at {company} yesterday and now {agents} agents cannot log in at all.',
    ],
    followUps: ['This is blocking all of our agents right now.'],
    replies: [
      'Hi {first},\n\nYour identity provider rotated its signing certificate. Upload the new certificate under Settings > Security > Single sign-on and logins work again.',
      'Hello {first},\n\nThe SAML assertion lacked the email attribute. Map the user email to NameID in your identity provider, then sign in again{pii}.',
      'Hi {first},\n\nThe login loop came from clock skew on the identity provider. Once its clock was synced, single sign-on worked again for every user{pii}.',
    ],
    pii: [' (call our on-call engineer on {phone} if it still fails)', ' with the test account {email}'],
    slots: {
      idp: ['Okta', 'Azure AD', 'Google Workspace', 'OneLogin'],
      agents: ['12', '30', 'all 80'],
    },
  },
  {
    slug: 'performance',
    extraTags: ['dashboard'],
    priority: 'high',
    resolvers: [1],
    titles: [
      'Dashboard takes forever to load',
      'The board is very slow today',
      'Pages load slowly every afternoon',
      'Search results take over a minute',
      'Everything is sluggish since the update',
    ],
    descriptions: [
      'Opening the {page} takes {seconds} seconds or more, and sometimes {browser} gives up with a timeout.',
      'Everything is slow for our team in {region}: every click waits several seconds.',
      'Since the last release, loading the {page} is sluggish; it used to be instant.',
      'The {page} spins for ages before anything shows up, which slows the whole team down.',
    ],
    followUps: ['It is still slow right now.'],
    replies: [
      'Hi {first},\n\nA slow database query made the dashboard load slowly. We deployed a fix and load times are back under a second.',
      'Hello {first},\n\nThe slowness came from a very large saved filter on your board. I simplified the filter and pages load quickly again.',
      'Hi {first},\n\nWe added capacity in your region after a traffic spike, and response times are normal again. Clear the browser cache if a page still feels slow.',
    ],
    pii: [],
    slots: {
      page: ['dashboard', 'board', 'reports page', 'ticket list'],
      seconds: ['20', '45', '90'],
      region: ['Europe', 'Asia', 'the US'],
    },
  },
  {
    slug: 'notifications',
    extraTags: ['email'],
    priority: 'medium',
    resolvers: [2, 0],
    titles: [
      'Not receiving notification emails',
      'Too many email notifications',
      'Notification emails arrive hours late',
      'No alert when a ticket is assigned to me',
      'How do I turn off the daily digest?',
    ],
    descriptions: [
      'I stopped getting notification emails when tickets are assigned to me, although my settings look right.',
      'Our agents get an email for every single comment; we would rather have a daily digest.',
      'Notification emails reach us {hours} hours after the event, which makes them useless.',
      'Mentions used to send an email alert; since {weekday} nothing arrives.',
    ],
    followUps: ['Still no notifications today.'],
    replies: [
      'Hi {first},\n\nYour address was on our suppression list after a bounce. I removed it{pii}, so notification emails arrive again.',
      'Hello {first},\n\nYou choose which notifications you receive under Profile > Notifications, including one daily digest instead of an email per comment.',
      'Hi {first},\n\nA backlog in our mail queue delayed notifications. It is cleared, and emails go out within a minute again{pii}.',
    ],
    pii: [' ({email})', ' (I checked with a test to {email})'],
    slots: { hours: ['2', '4', '6'] },
  },
  {
    slug: 'api',
    extraTags: ['webhooks'],
    priority: 'medium',
    resolvers: [2],
    titles: [
      'API returns 401 with a valid key',
      'Webhook deliveries keep failing',
      'Rate limit errors from the REST API',
      'Slack integration stopped posting',
      'API token rejected after rotation',
    ],
    descriptions: [
      'Our integration gets "401 Unauthorized" from the REST API even though the API key was created today.',
      'Webhook deliveries to our endpoint fail with a TLS error since we moved the receiver to a new host.',
      'Our nightly sync hits "429 Too Many Requests" after about {calls} calls to the API.',
      'The Slack integration posted new tickets to our channel until {weekday}; now nothing appears.',
    ],
    followUps: ['Our integration is still failing.'],
    replies: [
      'Hi {first},\n\nAPI keys are scoped to a project. Create the key with the tickets:read scope for this project and send it in the Authorization header as a bearer token.',
      'Hello {first},\n\nThe webhook deliveries failed because the new endpoint serves a self-signed certificate. Install a certificate from a public authority and deliveries resume by themselves.',
      'Hi {first},\n\nThe API allows 100 requests per minute per key. Use the bulk endpoints and back off on 429 responses as the Retry-After header says{pii}.',
    ],
    pii: [', or ask {email} for a temporary raise'],
    slots: { calls: ['500', '1,000', '2,000'] },
  },
  {
    slug: 'mobile',
    extraTags: ['ios', 'android'],
    priority: 'low',
    resolvers: [1, 2],
    titles: [
      'Mobile app crashes on startup',
      'Phone app will not open after the update',
      'App on my {device} closes when I open a ticket',
      'Mobile app keeps signing me out',
      'Photos do not upload from the phone app',
    ],
    descriptions: [
      'Since updating to version {version}, the app on my {device} crashes right after the splash screen.',
      'The mobile app closes as soon as I open a ticket. Reinstalling did not help.',
      'On my {device} the app forgets my session every morning and I must sign in again.',
      'Photos attached from the phone app never upload; the spinner keeps turning.',
    ],
    followUps: ['The app still crashes with the newest version.'],
    replies: [
      'Hi {first},\n\nThe crash is fixed in the latest app release. Please update the app from the App Store or Google Play and open it again.',
      'Hello {first},\n\nPlease sign out, clear the app data and sign in again: an old session token from before the update caused it. If it persists, send us the device model{pii}.',
      'Hi {first},\n\nUploads from the mobile app failed for photos over 10 MB. The new app version compresses them before uploading.',
    ],
    pii: [' at {email}', ' or call {phone}'],
    slots: {
      device: ['iPhone 15', 'Pixel 8', 'Galaxy S23', 'iPad'],
      version: ['5.2', '5.3', '6.0'],
    },
  },
];

/**
 * Titles that say nothing about the problem, which some customers write (the description then
 * carries it all), and sentences any ticket may end with: both put words common to every category
 * into the corpus, which a retriever must see past.
 */
export const VAGUE_TITLES: readonly string[] = [
  'Urgent: need help',
  'Problem since {weekday}',
  'Question about our account',
  'Something is not working',
];
export const DESCRIPTION_ENDINGS: readonly string[] = [
  ' We are on the {tier} plan at {company}.',
  ' This is urgent for us, thanks in advance.',
  ' Thanks, {first} from {company}',
  ' It started on {weekday} after your update.',
  ' Could you please have a look?',
];

/** Slots every template may use. */
export const SHARED_SLOTS = {
  tier: ['Starter', 'Team', 'Business', 'Enterprise'],
  first: [
    'Anna',
    'Ben',
    'Chloe',
    'Dmitri',
    'Esra',
    'Farid',
    'Greta',
    'Hiro',
    'Ines',
    'Jonas',
    'Kemi',
    'Lena',
  ],
  last: ['Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ito', 'Jensen', 'Kowalski'],
  company: ['Contoso', 'Fabrikam', 'Northwind', 'Tailspin', 'Litware', 'Adatum', 'Woodgrove', 'Proseware'],
  browser: ['Chrome', 'Firefox', 'Safari', 'Edge'],
  weekday: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
} as const;

/** A customer's internal-only detail that must never reach another customer, `{secret}` its marker. */
export const INTERNAL_NOTES: readonly string[] = [
  'Checked the account: temporary admin password is {secret}, rotate it after the call.',
  'Customer is under a fraud review ({secret}); do not mention it in replies.',
  'Escalated to engineering with the internal trace id {secret}; the root cause is on our side.',
];

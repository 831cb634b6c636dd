/**
 * The eight problems of the synthetic corpus (synthetic-corpus.ts), as a support desk sees them
 * again and again: several ways a customer titles and describes the same problem, and two or three
 * wordings of the one answer that solves it (an agent rarely answers a known problem the same way
 * twice, but always with the same fix). `{name}` placeholders are filled per ticket from the
 * category's own `slots`, or from the shared ones (first, last, company, tier, browser, weekday, and
 * email, phone and order made from them); `{pii}` is where a reply sometimes names personal data (one
 * of `pii`, filled the same way), so that redaction shows. The wording overlaps a little between
 * categories on purpose (a reset *email*, a *notification* email; *sign in* with SSO and on the phone
 * app), as real tickets do.
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
  /** Wordings of the agent's resolving reply; the first line greets the customer. */
  replies: readonly string[];
  /** What `{pii}` in a reply becomes when the reply carries personal data. */
  pii: readonly string[];
  slots: Readonly<Record<string, readonly string[]>>;
}

/** Agents who resolve tickets; a category's `resolvers` index into them. */
export const RESOLVER_COUNT = 3;

export const CATEGORIES: readonly Category[] = [
  {
    // The reset email is slow or superseded: only the newest link works, for 30 minutes.
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
    ],
    descriptions: [
      'I clicked "Forgot password" {times} and no reset email arrived, not even in the spam folder. I am using {browser}.',
      'The password reset link opens a page saying the token has expired, although I requested it {minutes} minutes ago.',
      'The password reset email never shows up in the inbox for {who}, so we cannot get back into the account.',
      'After requesting a new password, the link in the reset email leads to an error page. We need access today.',
      'We at {company} had several people ask for a password reset this morning and none of them received the email.',
    ],
    followUps: ['Still no reset email, I checked the spam folder again.', 'Any news? I am still locked out.'],
    replies: [
      'Hi {first},\n\nReset emails can take up to 10 minutes, and only the newest link works: each request cancels the one before. I have sent a fresh password reset link{pii}; it stays valid for 30 minutes.\n\nBest regards',
      'Hello {first},\n\nEvery new reset request cancels the earlier links, and a link expires after 30 minutes. I have sent you one more password reset email{pii}; please use that newest link within the half hour.\n\nThanks',
      'Hi {first},\n\nOnly the latest reset link is valid, for 30 minutes, and the email can take up to 10 minutes to arrive. A fresh link is on its way{pii}.',
    ],
    pii: [' to {email}', ', and you can reach me on {phone} if it does not arrive'],
    slots: {
      who: ['a colleague', 'our new hire', 'my manager', 'two of our agents'],
      times: ['twice', 'three times', 'five times'],
      minutes: ['2', '5', '10'],
    },
  },
  {
    // A renewal retried after a card timeout charged twice: the duplicate is refunded.
    slug: 'billing',
    extraTags: ['invoice', 'refund'],
    priority: 'medium',
    resolvers: [1],
    titles: [
      'Charged twice this month',
      'Double charge on our credit card',
      'Need a refund for a duplicate payment',
      'Billed two times for the {tier} plan',
      'Two identical payments on our invoice',
    ],
    descriptions: [
      'Our credit card was charged twice for the {tier} plan this month. Please refund the duplicate payment.',
      'The card statement shows two identical charges on the renewal date, and the invoice lists both payments.',
      'We were billed twice for {seats} seats this month; finance asks for the second payment back.',
      'Our bank shows a double charge from you on {weekday}. Can you refund one of them?',
    ],
    followUps: [
      'Our finance team is asking again about this charge.',
      'Could you confirm when the refund will arrive?',
    ],
    replies: [
      'Hi {first},\n\nSorry about the double charge: the renewal was retried after a timeout at the card processor. I have refunded the duplicate payment{pii}; it shows on your card statement within 5 to 10 business days.',
      'Hello {first},\n\nThe second charge came from a retried renewal. I refunded the duplicate payment in full{pii}; your bank will show it within 5 to 10 business days.',
      'Hi {first},\n\nYou were charged twice because the card processor timed out and the renewal ran again. The duplicate is refunded{pii} and reaches your card within 10 business days.',
    ],
    pii: [' for order {order}', ' and emailed the credit note to {email}'],
    slots: { seats: ['25', '40', '60'] },
  },
  {
    // Excel reads the UTF-8 CSV export as another encoding: import it as UTF-8.
    slug: 'export',
    extraTags: ['csv'],
    priority: 'low',
    resolvers: [2],
    titles: [
      'CSV export mangles special characters',
      'Accents broken in the exported file',
      'Excel shows garbled text in the CSV export',
      'Exported names with umlauts come out wrong',
    ],
    descriptions: [
      'Names with accents such as "{accented}" come out garbled when we open the CSV export in Excel.',
      'When I export the {report} report to CSV and open it, every special character shows as strange symbols.',
      'The exported spreadsheet turns "{accented}" into nonsense characters; the app itself shows the name correctly.',
      'Our {report} export in CSV breaks all accented letters, so we cannot send it to the customer.',
    ],
    followUps: ['We need this export for the monthly report, any update?'],
    replies: [
      'Hi {first},\n\nThe CSV export is written in UTF-8. In Excel, open it with Data > From Text/CSV and pick UTF-8 as the file origin, and accented characters show correctly.',
      'Hello {first},\n\nExcel guesses the wrong encoding when you double-click the file. Import it with Data > From Text/CSV and choose UTF-8, and the names keep their accents{pii}.',
      'Hi {first},\n\nOur CSV files are UTF-8; Excel opens them as another encoding unless told otherwise. Use Data > From Text/CSV with UTF-8 and every special character comes through.',
    ],
    pii: [' (I checked it with the file you sent to {email})'],
    slots: {
      report: ['weekly', 'SLA', 'agent activity', 'customer'],
      accented: ['Zoë Ångström', 'José Núñez', 'Françoise Müller'],
    },
  },
  {
    // The identity provider rotated its signing certificate: upload the new one.
    slug: 'login',
    extraTags: ['sso'],
    priority: 'critical',
    resolvers: [0, 2],
    titles: [
      'SSO login fails with an error',
      'Cannot sign in with {idp}',
      'Single sign-on stopped working',
      'SAML error after certificate renewal',
      'Whole team unable to log in through {idp}',
    ],
    descriptions: [
      'Since this morning every sign-in through {idp} ends with "SAML response invalid". Nobody on the team can log in.',
      'After our identity provider renewed its certificate, single sign-on fails with a signature error.',
      'Users are sent to {idp} and come back with "invalid SAML signature" instead of being signed in.',
      'Single sign-on at {company} broke overnight and now {agents} agents cannot log in at all.',
    ],
    followUps: ['This is blocking all of our agents right now.'],
    replies: [
      'Hi {first},\n\nYour identity provider rotated its signing certificate. Upload the new certificate under Settings > Security > Single sign-on and logins work again{pii}.',
      'Hello {first},\n\nThe SAML responses are now signed with a new certificate that we did not know yet. Once an admin uploads it under Settings > Security > Single sign-on, everyone can sign in again{pii}.',
      'Hi {first},\n\nSingle sign-on failed because the identity provider renewed its signing certificate. Add the new certificate in Settings > Security > Single sign-on and sign-in works again.',
    ],
    pii: [
      ' (call our on-call engineer on {phone} if it still fails)',
      '; I tested it with the account {email}',
    ],
    slots: {
      idp: ['Okta', 'Azure AD', 'Google Workspace', 'OneLogin'],
      agents: ['12', '30', 'all 80'],
    },
  },
  {
    // A slow database query behind the dashboard, fixed on our side.
    slug: 'performance',
    extraTags: ['dashboard'],
    priority: 'high',
    resolvers: [1],
    titles: [
      'Dashboard takes forever to load',
      'The dashboard is very slow today',
      'Pages load slowly every afternoon',
      'Everything is sluggish since the update',
    ],
    descriptions: [
      'Opening the {page} takes {seconds} seconds or more, and sometimes {browser} gives up with a timeout.',
      'Everything is slow for our team in {region}: every click on the {page} waits several seconds.',
      'Since the last release, loading the {page} is sluggish; it used to be instant.',
      'The {page} spins for ages before anything shows up, which slows the whole team down.',
    ],
    followUps: ['It is still slow right now.'],
    replies: [
      'Hi {first},\n\nA slow database query made the dashboard load slowly. We deployed a fix and load times are back under a second.',
      'Hello {first},\n\nWe found the cause: one database query behind the dashboard had become slow. The fix is live, and pages load in under a second again.',
      'Hi {first},\n\nThe slowness came from a database query that grew slow with your data. We shipped a fix today; the dashboard and lists load quickly again.',
    ],
    pii: [],
    slots: {
      page: ['dashboard', 'board', 'reports page', 'ticket list'],
      seconds: ['20', '45', '90'],
      region: ['Europe', 'Asia', 'the US'],
    },
  },
  {
    // The address bounced once and landed on the suppression list: removed from it.
    slug: 'notifications',
    extraTags: ['email'],
    priority: 'medium',
    resolvers: [2, 0],
    titles: [
      'Not receiving notification emails',
      'Notification emails stopped',
      'No alert when a ticket is assigned to me',
      'Mentions no longer send an email',
    ],
    descriptions: [
      'I stopped getting notification emails when tickets are assigned to me, although my settings look right.',
      'None of our agents receive email notifications any more; the in-app bell still works.',
      'Mentions used to send an email alert; since {weekday} nothing arrives.',
      'Notification emails for new comments stopped for {who}, other colleagues still get them.',
    ],
    followUps: ['Still no notifications today.'],
    replies: [
      'Hi {first},\n\nYour address was on our suppression list after a bounce. I removed it{pii}, so notification emails arrive again.',
      'Hello {first},\n\nOne of our emails to you bounced, which puts an address on the suppression list. I took it off the list{pii}; notifications are delivered again from now on.',
      'Hi {first},\n\nNotifications stopped because a bounce had put your address on our suppression list. It is removed{pii}, and emails go out again.',
    ],
    pii: [' ({email})', ' and sent a test to {email}'],
    slots: { who: ['me', 'two colleagues', 'our team lead'] },
  },
  {
    // The receiver moved to a host with a self-signed certificate: deliveries fail TLS.
    slug: 'api',
    extraTags: ['webhooks'],
    priority: 'medium',
    resolvers: [2],
    titles: [
      'Webhook deliveries keep failing',
      'Webhooks stopped after moving our endpoint',
      'No webhook events since {weekday}',
      'Webhook delivery errors in the log',
    ],
    descriptions: [
      'Webhook deliveries to our endpoint fail with a TLS error since we moved the receiver to a new host.',
      'The delivery log shows every webhook attempt failing with "certificate verify failed".',
      'We changed the URL of our webhook receiver and since then no deliveries arrive.',
      'Our integration stopped getting ticket events; the webhook log lists handshake errors for each delivery.',
    ],
    followUps: ['Our integration is still not receiving anything.'],
    replies: [
      'Hi {first},\n\nThe webhook deliveries failed because the new endpoint serves a self-signed certificate. Install a certificate from a public authority and deliveries resume by themselves.',
      'Hello {first},\n\nYour new receiver presents a self-signed TLS certificate, which we refuse. With a certificate from a public authority, the failed deliveries are retried automatically{pii}.',
      'Hi {first},\n\nDeliveries fail the TLS check: the endpoint on the new host uses a self-signed certificate. Put a publicly trusted certificate on it and webhooks flow again{pii}.',
    ],
    pii: [
      ', or ask {email} to redeliver them now',
      '; I can redeliver the missed events, call me on {phone}',
    ],
    slots: {},
  },
  {
    // The app kept a session token from before the update: sign out, clear data, sign in.
    slug: 'mobile',
    extraTags: ['ios', 'android'],
    priority: 'low',
    resolvers: [1, 2],
    titles: [
      'Mobile app keeps signing me out',
      'Phone app asks me to sign in every day',
      'App on my {device} forgets my session',
      'Logged out of the mobile app every morning',
    ],
    descriptions: [
      'Since updating to version {version}, the app on my {device} forgets my session every night.',
      'On my {device} the app asks for my password every morning, although I ticked "stay signed in".',
      'The mobile app logs me out whenever I switch to another app. Reinstalling did not help.',
      'Our agents using the phone app must sign in again several times a day since version {version}.',
    ],
    followUps: ['The app still signs me out with the newest version.'],
    replies: [
      'Hello {first},\n\nPlease sign out, clear the app data and sign in again: an old session token from before the update caused it. If it persists, send us the device model{pii}.',
      'Hi {first},\n\nThe app kept a session token from before the update. Sign out, clear the app data in the phone settings, and sign in again; it then stays signed in{pii}.',
      'Hi {first},\n\nAn outdated session token survived the update. After signing out, clearing the app data and signing in once more, the app keeps you signed in.',
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

/**
 * The parts of mailauth (CommonJS, no types of its own in 4.x) the mail service uses: authenticate()
 * for the checks, dmarc() to evaluate DMARC again with a trusted relay's SPF, dkimSign() in tests.
 * Results are read defensively (sender-auth.ts): only the fields named here are relied on.
 */
declare module 'mailauth' {
  export type Resolver = (name: string, rrtype: string) => Promise<unknown>;
  export interface Status {
    result?: string;
    comment?: string | false;
    header?: Record<string, string | false | undefined>;
    aligned?: string | false;
    underSized?: number;
  }
  export interface DkimResult {
    id?: string;
    signingDomain?: string;
    selector?: string;
    status?: Status;
    info?: string;
  }
  export interface DkimOutput {
    headerFrom?: string[];
    envelopeFrom?: string | false;
    results?: DkimResult[];
  }
  export interface SpfOutput {
    domain?: string;
    status?: Status;
    info?: string;
  }
  export interface DmarcOutput {
    status?: Status;
    domain?: string;
    policy?: string;
    p?: string;
    sp?: string;
    info?: string;
    error?: string;
  }
  export interface ArcOutput {
    status?: Status;
    info?: string;
  }
  export interface AuthenticateOptions {
    ip?: string;
    helo?: string;
    sender?: string;
    mta?: string;
    resolver?: Resolver;
    disableArc?: boolean;
    disableDmarc?: boolean;
    disableBimi?: boolean;
    minBitLength?: number;
  }
  export interface AuthenticateResult {
    dkim: DkimOutput;
    spf: SpfOutput | false;
    dmarc: DmarcOutput | false;
    arc: ArcOutput | false;
    headers: string;
  }
  export function authenticate(
    message: Buffer | string,
    options?: AuthenticateOptions,
  ): Promise<AuthenticateResult>;
  const mailauth: { authenticate: typeof authenticate };
  export default mailauth;
}

declare module 'mailauth/lib/dmarc/index.js' {
  import type { ArcOutput, DmarcOutput, Resolver } from 'mailauth';
  export function dmarc(options: {
    headerFrom: string | string[];
    spfDomains: string[];
    dkimDomains: { id?: string; domain?: string; aligned?: string | false; underSized?: number }[];
    arcResult?: ArcOutput | false;
    resolver: Resolver;
  }): Promise<DmarcOutput | false>;
  const module: { dmarc: typeof dmarc };
  export default module;
}

declare module 'mailauth/lib/dkim/sign.js' {
  export function dkimSign(
    message: Buffer | string,
    options: {
      canonicalization?: string;
      signatureData: { signingDomain: string; selector: string; privateKey: string | Buffer }[];
    },
  ): Promise<{ signatures: string; errors: unknown[] }>;
  const module: { dkimSign: typeof dkimSign };
  export default module;
}
